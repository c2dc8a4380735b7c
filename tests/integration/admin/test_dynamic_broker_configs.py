"""Dynamic broker configs: AlterConfigs and IncrementalAlterConfigs on BROKER resources (this
broker's id, or the empty name for the cluster-wide default) accept Kafka's dynamically
updatable configs, apply the ones the broker uses, report them with their dynamic source,
and keep them across a restart; confluent-kafka, kafka-python and raw wire."""

from __future__ import annotations

from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigSource
from confluent_kafka.admin import ConfigResource as CConfigResource
from kafka import KafkaAdminClient
from kafka.admin import ConfigResource as KConfigResource
from kafka.admin import ConfigResourceType as KConfigResourceType

from protocol.errors import ErrorCode
from protocol.messages.alter_configs_request import AlterableConfig, AlterConfigsRequest, AlterConfigsResource
from protocol.messages.alter_configs_response import AlterConfigsResponse
from protocol.messages.incremental_alter_configs_request import AlterableConfig as IncrementalConfig
from protocol.messages.incremental_alter_configs_request import AlterConfigsResource as IncrementalResource
from protocol.messages.incremental_alter_configs_request import IncrementalAlterConfigsRequest
from protocol.messages.incremental_alter_configs_response import IncrementalAlterConfigsResponse
from tests.broker_process import BrokerProcess
from tests.integration.admin.admin_wire import create, describe, topic
from tests.kafka_wire import WireClient
from tests.names import unique

ALTER_CONFIGS, INCREMENTAL_ALTER_CONFIGS = 33, 44
TOPIC, BROKER, GROUP = 2, 4, 32
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
TOPIC_CONFIG, DYNAMIC_BROKER, DYNAMIC_DEFAULT, STATIC, DEFAULT, GROUP_CONFIG = 1, 2, 3, 4, 5, 8
RELOGIN = "sasl.kerberos.min.time.before.relogin"


def incremental(client: WireClient, name: str, *ops: tuple[str, int, str | None], validate_only: bool = False,
                rtype: int = BROKER) -> tuple[int, str | None]:
    resource = IncrementalResource(rtype, name, [IncrementalConfig(n, op, v) for n, op, v in ops])
    response = client.call(
        INCREMENTAL_ALTER_CONFIGS, 1, IncrementalAlterConfigsRequest(resources=[resource], validate_only=validate_only)
    )
    assert isinstance(response, IncrementalAlterConfigsResponse)
    return response.responses[0].error_code, response.responses[0].error_message


def legacy(client: WireClient, name: str, configs: dict[str, str]) -> tuple[int, str | None]:
    resource = AlterConfigsResource(BROKER, name, [AlterableConfig(k, v) for k, v in configs.items()])
    response = client.call(ALTER_CONFIGS, 2, AlterConfigsRequest(resources=[resource]))
    assert isinstance(response, AlterConfigsResponse)
    return response.responses[0].error_code, response.responses[0].error_message


def row(client: WireClient, rtype: int, name: str, key: str) -> tuple[str | None, int, list[tuple[str, str | None, int]]]:
    result = describe(client, rtype, name, [key], include_synonyms=True)
    assert result.error_code == ErrorCode.NONE
    [config] = result.configs
    return config.value, config.config_source, [(s.name, s.value, s.source) for s in config.synonyms]


def test_dynamic_configs_survive_restart_and_delete_back(fresh_broker: BrokerProcess) -> None:
    name = unique()
    with WireClient(fresh_broker.bootstrap) as client:
        assert create(client, topic(name))[0].error_code == ErrorCode.NONE
        # What librdkafka's admin test alters: a per-broker SASL setting.
        assert incremental(client, "1", (RELOGIN, SET, "58000")) == (0, None)
        assert row(client, BROKER, "1", RELOGIN) == (
            "58000", DYNAMIC_BROKER, [(RELOGIN, "58000", DYNAMIC_BROKER), (RELOGIN, "60000", DEFAULT)])
        # A cluster-wide default that topics take as theirs.
        assert incremental(client, "", ("log.retention.ms", SET, "3600000")) == (0, None)
        assert row(client, BROKER, "", "log.retention.ms") == (
            "3600000", DYNAMIC_DEFAULT, [("log.retention.ms", "3600000", DYNAMIC_DEFAULT)])
        # Kafka's synonyms of log.retention.ms include log.retention.hours (default 168).
        assert row(client, TOPIC, name, "retention.ms") == ("3600000", DYNAMIC_DEFAULT, [
            ("log.retention.ms", "3600000", DYNAMIC_DEFAULT), ("log.retention.hours", "168", DEFAULT)])
        # The per-broker value wins over the default.
        assert incremental(client, "1", (RELOGIN, SET, "58000"), ("log.retention.ms", SET, "7200000")) == (0, None)
        assert row(client, TOPIC, name, "retention.ms") == ("7200000", DYNAMIC_BROKER, [
            ("log.retention.ms", "7200000", DYNAMIC_BROKER), ("log.retention.ms", "3600000", DYNAMIC_DEFAULT),
            ("log.retention.hours", "168", DEFAULT)])
        assert incremental(client, unique("group"), ("consumer.session.timeout.ms", SET, "50000"), rtype=GROUP)[0] == 0
        # The default resource lists only the cluster-wide dynamic configs.
        defaults = describe(client, BROKER, "")
        assert [(c.name, c.value, c.config_source) for c in defaults.configs] == [
            ("log.retention.ms", "3600000", DYNAMIC_DEFAULT)]

    fresh_broker.restart()
    with WireClient(fresh_broker.bootstrap) as client:
        assert row(client, BROKER, "1", RELOGIN)[:2] == ("58000", DYNAMIC_BROKER)
        assert row(client, TOPIC, name, "retention.ms")[:2] == ("7200000", DYNAMIC_BROKER)
        assert row(client, BROKER, "", "log.retention.ms")[:2] == ("3600000", DYNAMIC_DEFAULT)

        assert incremental(client, "1", (RELOGIN, DELETE, None), ("log.retention.ms", DELETE, None)) == (0, None)
        assert row(client, BROKER, "1", RELOGIN) == ("60000", DEFAULT, [(RELOGIN, "60000", DEFAULT)])
        assert row(client, TOPIC, name, "retention.ms")[:2] == ("3600000", DYNAMIC_DEFAULT)
        assert incremental(client, "", ("log.retention.ms", DELETE, None)) == (0, None)
        assert row(client, TOPIC, name, "retention.ms") == ("604800000", DEFAULT, [])
        assert describe(client, BROKER, "").configs == []

    fresh_broker.restart()
    with WireClient(fresh_broker.bootstrap) as client:
        assert row(client, BROKER, "1", RELOGIN)[:2] == ("60000", DEFAULT)
        assert row(client, TOPIC, name, "retention.ms")[:2] == ("604800000", DEFAULT)


def test_refusals_follow_kafka(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as client:
        assert incremental(client, "1", ("num.partitions", SET, "3")) == (
            ErrorCode.INVALID_REQUEST, "Cannot update these configs dynamically: Set(num.partitions)")
        assert legacy(client, "1", {"delete.topic.enable": "false", "log.dirs": "/tmp"}) == (
            ErrorCode.INVALID_REQUEST, "Cannot update these configs dynamically: Set(delete.topic.enable, log.dirs)")
        assert incremental(client, "", (RELOGIN, SET, "58000")) == (
            ErrorCode.INVALID_REQUEST,
            f"Cannot update these configs at default cluster level, broker id must be specified: Set({RELOGIN})",
        )
        assert incremental(client, "1", ("ssl.keystore.location", SET, "/k.jks")) == (
            ErrorCode.INVALID_REQUEST,
            "These security configs can be dynamically updated only per-listener using the listener prefix: "
            "Set(ssl.keystore.location)",
        )
        code, message = incremental(client, "1", (RELOGIN, SET, "soon"))
        assert code == ErrorCode.INVALID_REQUEST and message is not None and RELOGIN in message
        assert incremental(client, "1", ("log.retention.ms", SET, "-5"))[0] == ErrorCode.INVALID_REQUEST
        assert incremental(client, "1", ("num.io.threads", APPEND, "2")) == (
            ErrorCode.INVALID_CONFIG, "Config value append is not allowed for config key: num.io.threads")
        assert incremental(client, "2", (RELOGIN, SET, "58000")) == (
            ErrorCode.INVALID_REQUEST, "Unexpected broker id, expected 1, but received 2")
        # validate_only changes nothing; deleting what was never set is fine.
        assert incremental(client, "1", (RELOGIN, SET, "58000"), validate_only=True) == (0, None)
        assert row(client, BROKER, "1", RELOGIN)[:2] == ("60000", DEFAULT)
        assert incremental(client, "1", ("num.io.threads", DELETE, None)) == (0, None)


def test_list_configs_append_and_subtract(fresh_broker: BrokerProcess) -> None:
    with WireClient(fresh_broker.bootstrap) as client:
        assert incremental(client, "1", ("sasl.enabled.mechanisms", APPEND, "PLAIN")) == (0, None)
        assert row(client, BROKER, "1", "sasl.enabled.mechanisms")[:2] == ("GSSAPI,PLAIN", DYNAMIC_BROKER)
        assert incremental(client, "1", ("sasl.enabled.mechanisms", SUBTRACT, "GSSAPI")) == (0, None)
        assert row(client, BROKER, "1", "sasl.enabled.mechanisms")[:2] == ("PLAIN", DYNAMIC_BROKER)
        # Legacy AlterConfigs replaces the resource's whole dynamic set.
        assert legacy(client, "1", {"num.io.threads": "4"}) == (0, None)
        assert row(client, BROKER, "1", "sasl.enabled.mechanisms")[:2] == ("GSSAPI", DEFAULT)
        assert row(client, BROKER, "1", "num.io.threads")[:2] == ("4", DYNAMIC_BROKER)


def test_dynamic_message_max_bytes_applies(fresh_broker: BrokerProcess) -> None:
    name = unique()
    with WireClient(fresh_broker.bootstrap) as client:
        assert create(client, topic(name))[0].error_code == ErrorCode.NONE
        assert incremental(client, "", ("message.max.bytes", SET, "2000")) == (0, None)
        assert row(client, TOPIC, name, "max.message.bytes")[:2] == ("2000", DYNAMIC_DEFAULT)

    def produce(size: int) -> int:
        outcome: list[KafkaError | None] = []
        producer = Producer({"bootstrap.servers": fresh_broker.bootstrap, "linger.ms": 0, "retries": 0,
                             "compression.type": "none"})
        producer.produce(name, value=b"x" * size, on_delivery=lambda err, _msg: outcome.append(err))
        producer.flush(15)
        [error] = outcome
        return KafkaError.NO_ERROR if error is None else error.code()

    assert produce(5000) == KafkaError.MSG_SIZE_TOO_LARGE
    assert produce(500) == KafkaError.NO_ERROR
    with WireClient(fresh_broker.bootstrap) as client:
        assert incremental(client, "", ("message.max.bytes", DELETE, None)) == (0, None)
    assert produce(5000) == KafkaError.NO_ERROR


def test_confluent_alters_broker_configs(broker: BrokerProcess) -> None:
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    resource = CConfigResource(
        CConfigResource.Type.BROKER, "1",
        incremental_configs=[ConfigEntry(RELOGIN, "59000", incremental_operation=AlterConfigOpType.SET)],
    )
    admin.incremental_alter_configs([resource])[resource].result(10)
    described = CConfigResource(CConfigResource.Type.BROKER, "1")
    configs = admin.describe_configs([described])[described].result(10)
    entry = configs[RELOGIN]
    assert (entry.value, entry.source, entry.is_default, entry.is_read_only) == (
        "59000", ConfigSource.DYNAMIC_BROKER_CONFIG.value, False, False)
    assert configs["num.partitions"].is_read_only
    # Legacy AlterConfigs, as librdkafka's admin test sends it.
    legacy_resource = CConfigResource(CConfigResource.Type.BROKER, "1", set_config={RELOGIN: "58000"})
    admin.alter_configs([legacy_resource])[legacy_resource].result(10)
    assert admin.describe_configs([described])[described].result(10)[RELOGIN].value == "58000"
    cleanup = CConfigResource(
        CConfigResource.Type.BROKER, "1",
        incremental_configs=[ConfigEntry(RELOGIN, None, incremental_operation=AlterConfigOpType.DELETE)],
    )
    admin.incremental_alter_configs([cleanup])[cleanup].result(10)
    assert admin.describe_configs([described])[described].result(10)[RELOGIN].source == ConfigSource.DEFAULT_CONFIG.value


def test_kafka_python_alters_broker_configs(broker: BrokerProcess) -> None:
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        resource = KConfigResource(KConfigResourceType.BROKER, "1", configs={"log.cleaner.threads": "2"})
        result = admin.alter_configs([resource])
        assert result == {"broker": {"1": "OK"}}
        described = admin.describe_configs([KConfigResource(KConfigResourceType.BROKER, "1")], include_synonyms=True)
        entry = described["broker"]["1"]["log.cleaner.threads"]
        assert (entry["value"], entry["config_source"]) == ("2", "DYNAMIC_BROKER_CONFIG")
        assert entry["synonyms"] == [
            {"name": "log.cleaner.threads", "value": "2", "source": "DYNAMIC_BROKER_CONFIG"},
            {"name": "log.cleaner.threads", "value": "1", "source": "DEFAULT_CONFIG"},
        ]
        delete = KConfigResource(KConfigResourceType.BROKER, "1", configs={"log.cleaner.threads": ("DELETE", None)})
        assert admin.alter_configs([delete]) == {"broker": {"1": "OK"}}
        after = admin.describe_configs([KConfigResource(KConfigResourceType.BROKER, "1")], config_filter="all")
        assert after["broker"]["1"]["log.cleaner.threads"]["config_source"] == "DEFAULT_CONFIG"
    finally:
        admin.close()
