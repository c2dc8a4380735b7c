"""DescribeConfigs sources, IsDefault, synonyms and error messages as Kafka sends them, per
version and through confluent-kafka, kafka-python and aiokafka; and GROUP resources
(KIP-848 group configs) described and altered."""

from __future__ import annotations

import pytest
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from confluent_kafka.admin import AdminClient, ConfigSource
from confluent_kafka.admin import ConfigResource as CConfigResource
from kafka import KafkaAdminClient
from kafka.admin import ConfigResource as KConfigResource
from kafka.admin import ConfigResourceType as KConfigResourceType

from protocol.errors import ErrorCode
from protocol.messages.incremental_alter_configs_request import (
    AlterableConfig,
    AlterConfigsResource,
    IncrementalAlterConfigsRequest,
)
from protocol.messages.incremental_alter_configs_response import IncrementalAlterConfigsResponse
from tests.broker_process import BrokerProcess
from tests.integration.admin.admin_wire import create, describe, topic
from tests.kafka_wire import WireClient
from tests.names import unique

INCREMENTAL_ALTER_CONFIGS = 44
TOPIC, BROKER, BROKER_LOGGER, GROUP = 2, 4, 8, 32
SET, DELETE, APPEND = 0, 1, 2
# Kafka's DescribeConfigsResponse.ConfigSource
TOPIC_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG, GROUP_CONFIG = 1, 4, 5, 8


@pytest.fixture
def client(broker: BrokerProcess) -> WireClient:
    return WireClient(broker.bootstrap)


@pytest.mark.parametrize("version", range(0, 5))
def test_topic_sources_and_is_default_per_version(client: WireClient, version: int) -> None:
    name = unique()
    assert create(client, topic(name, retention_ms="5000"))[0].error_code == ErrorCode.NONE
    result = describe(client, TOPIC, name, ["retention.ms", "segment.bytes", "cleanup.policy"], version=version,
                      include_synonyms=True)
    assert (result.error_code, result.error_message) == (ErrorCode.NONE, "")
    rows = {c.name: c for c in result.configs}
    if version == 0:
        # v0 carries IsDefault instead of the source.
        assert {n: (c.value, c.is_default) for n, c in rows.items()} == {
            "retention.ms": ("5000", False), "segment.bytes": ("1073741824", True), "cleanup.policy": ("delete", True),
        }
        return
    assert {n: (c.value, c.config_source, c.read_only) for n, c in rows.items()} == {
        "retention.ms": ("5000", TOPIC_CONFIG, False),
        "segment.bytes": ("1073741824", DEFAULT_CONFIG, False),
        "cleanup.policy": ("delete", DEFAULT_CONFIG, False),
    }
    assert {n: [(s.name, s.value, s.source) for s in c.synonyms] for n, c in rows.items()} == {
        "retention.ms": [("retention.ms", "5000", TOPIC_CONFIG)],
        "segment.bytes": [("log.segment.bytes", "1073741824", DEFAULT_CONFIG)],
        "cleanup.policy": [("log.cleanup.policy", "delete", DEFAULT_CONFIG)],
    }


@pytest.mark.parametrize("version", range(0, 5))
def test_broker_sources_per_version(client: WireClient, version: int) -> None:
    result = describe(client, BROKER, "1", ["listeners", "num.partitions", "message.max.bytes"], version=version,
                      include_synonyms=True)
    assert (result.error_code, result.error_message) == (ErrorCode.NONE, "")
    rows = {c.name: c for c in result.configs}
    if version == 0:
        assert {n: (c.is_default, c.read_only) for n, c in rows.items()} == {
            "listeners": (False, True), "num.partitions": (True, True), "message.max.bytes": (True, False),
        }
        return
    assert {n: (c.config_source, c.read_only) for n, c in rows.items()} == {
        "listeners": (STATIC_BROKER_CONFIG, True),  # given on the command line
        "num.partitions": (DEFAULT_CONFIG, True),
        "message.max.bytes": (DEFAULT_CONFIG, False),  # dynamically updatable
    }
    assert [(s.name, s.source) for s in rows["listeners"].synonyms] == [
        ("listeners", STATIC_BROKER_CONFIG),
        ("listeners", DEFAULT_CONFIG),
    ]


def test_errors_keep_their_messages(client: WireClient) -> None:
    missing = describe(client, TOPIC, unique())
    assert missing.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    logger = describe(client, BROKER_LOGGER, "")
    assert (logger.error_code, logger.error_message) == (ErrorCode.INVALID_REQUEST, "Broker id must not be empty")
    group = describe(client, GROUP, "")
    assert (group.error_code, group.error_message) == (ErrorCode.INVALID_REQUEST, "Group name must not be empty")


def alter(client: WireClient, resource_type: int, name: str, *ops: tuple[str, int, str | None],
          validate_only: bool = False) -> tuple[int, str | None]:
    """IncrementalAlterConfigs of one resource: its error code and message."""
    resource = AlterConfigsResource(resource_type, name, [AlterableConfig(n, op, v) for n, op, v in ops])
    response = client.call(
        INCREMENTAL_ALTER_CONFIGS, 1, IncrementalAlterConfigsRequest(resources=[resource], validate_only=validate_only)
    )
    assert isinstance(response, IncrementalAlterConfigsResponse)
    return response.responses[0].error_code, response.responses[0].error_message


def alter_group(client: WireClient, group: str, *ops: tuple[str, int, str | None],
                validate_only: bool = False) -> tuple[int, str | None]:
    return alter(client, GROUP, group, *ops, validate_only=validate_only)


def test_group_configs_described_and_altered(client: WireClient) -> None:
    group = unique("group")
    result = describe(client, GROUP, group, include_synonyms=True)
    assert (result.error_code, result.error_message) == (ErrorCode.NONE, "")
    rows = {c.name: c for c in result.configs}
    assert {"consumer.session.timeout.ms", "consumer.heartbeat.interval.ms", "share.auto.offset.reset",
            "streams.num.standby.replicas"} <= set(rows)
    session = rows["consumer.session.timeout.ms"]
    assert (session.value, session.config_source, session.read_only, session.config_type) == (
        "45000", DEFAULT_CONFIG, False, 3)
    assert [(s.name, s.value, s.source) for s in session.synonyms] == [
        ("group.consumer.session.timeout.ms", "45000", DEFAULT_CONFIG)
    ]
    reset = rows["share.auto.offset.reset"]
    assert [(s.name, s.value, s.source) for s in reset.synonyms] == [
        ("share.auto.offset.reset", "latest", DEFAULT_CONFIG)
    ]

    assert alter_group(client, group, ("consumer.session.timeout.ms", SET, "50000"), validate_only=True) == (0, None)
    assert describe(client, GROUP, group, ["consumer.session.timeout.ms"]).configs[0].value == "45000"
    assert alter_group(client, group, ("consumer.session.timeout.ms", SET, "50000"),
                       ("share.auto.offset.reset", SET, "earliest")) == (0, None)
    after = {c.name: c for c in describe(client, GROUP, group, include_synonyms=True).configs}
    assert (after["consumer.session.timeout.ms"].value, after["consumer.session.timeout.ms"].config_source) == (
        "50000", GROUP_CONFIG)
    assert [(s.name, s.value, s.source) for s in after["consumer.session.timeout.ms"].synonyms] == [
        ("consumer.session.timeout.ms", "50000", GROUP_CONFIG),
        ("group.consumer.session.timeout.ms", "45000", DEFAULT_CONFIG),
    ]
    assert (after["share.auto.offset.reset"].value, after["share.auto.offset.reset"].config_source) == (
        "earliest", GROUP_CONFIG)
    other = describe(client, GROUP, unique("group"), ["consumer.session.timeout.ms"]).configs[0]
    assert (other.value, other.config_source) == ("45000", DEFAULT_CONFIG)

    # GroupConfig's checks, on the resulting config.
    assert alter_group(client, group, ("no.such.config", SET, "1")) == (
        ErrorCode.INVALID_CONFIG, "Unknown group config name: no.such.config")
    assert alter_group(client, group, ("consumer.session.timeout.ms", SET, "70000")) == (
        ErrorCode.INVALID_CONFIG,
        "consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms",
    )
    assert alter_group(client, group, ("consumer.heartbeat.interval.ms", SET, "soon"))[0] == ErrorCode.INVALID_CONFIG
    assert alter_group(client, group, ("share.auto.offset.reset", APPEND, "latest")) == (
        ErrorCode.INVALID_CONFIG, "Can't APPEND to key share.auto.offset.reset because its type is not LIST.")
    assert alter_group(client, "", ("consumer.session.timeout.ms", SET, "50000")) == (
        ErrorCode.INVALID_REQUEST, "Group name must not be empty")

    assert alter_group(client, group, ("consumer.session.timeout.ms", DELETE, None)) == (0, None)
    back = describe(client, GROUP, group, ["consumer.session.timeout.ms"]).configs[0]
    assert (back.value, back.config_source) == ("45000", DEFAULT_CONFIG)


def test_confluent_sources_and_is_default(broker: BrokerProcess) -> None:
    name = unique()
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    with WireClient(broker.bootstrap) as client:
        assert create(client, topic(name, retention_ms="5000"))[0].error_code == ErrorCode.NONE
    resource = CConfigResource(CConfigResource.Type.TOPIC, name)
    configs = admin.describe_configs([resource])[resource].result(10)
    assert (configs["retention.ms"].source, configs["retention.ms"].is_default) == (
        ConfigSource.DYNAMIC_TOPIC_CONFIG.value, False)
    assert (configs["segment.bytes"].source, configs["segment.bytes"].is_default) == (
        ConfigSource.DEFAULT_CONFIG.value, True)
    assert [(s.name, s.value, s.source) for s in configs["segment.bytes"].synonyms.values()] == [
        ("log.segment.bytes", "1073741824", ConfigSource.DEFAULT_CONFIG.value)
    ]
    defaults = [c for c in configs.values() if c.is_default]
    assert len(defaults) == len(configs) - 1  # everything but the override
    broker_resource = CConfigResource(CConfigResource.Type.BROKER, "1")
    broker_configs = admin.describe_configs([broker_resource])[broker_resource].result(10)
    assert (broker_configs["listeners"].source, broker_configs["listeners"].is_default) == (
        ConfigSource.STATIC_BROKER_CONFIG.value, False)
    assert (broker_configs["num.partitions"].source, broker_configs["num.partitions"].is_default) == (
        ConfigSource.DEFAULT_CONFIG.value, True)


def test_kafka_python_sources(broker: BrokerProcess) -> None:
    name, group = unique(), unique("group")
    with WireClient(broker.bootstrap) as client:
        assert create(client, topic(name, retention_ms="5000"))[0].error_code == ErrorCode.NONE
        assert alter_group(client, group, ("consumer.heartbeat.interval.ms", SET, "6000")) == (0, None)
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        described = admin.describe_configs(
            [KConfigResource(KConfigResourceType.TOPIC, name), KConfigResource(KConfigResourceType.GROUP, group)],
            include_synonyms=True, config_filter="all",
        )
    finally:
        admin.close()
    configs = described["topic"][name]
    assert configs["retention.ms"]["config_source"] == "DYNAMIC_TOPIC_CONFIG"
    assert configs["segment.bytes"]["config_source"] == "DEFAULT_CONFIG"
    assert configs["segment.bytes"]["synonyms"] == [
        {"name": "log.segment.bytes", "value": "1073741824", "source": "DEFAULT_CONFIG"}
    ]
    group_configs = described["group"][group]
    assert (group_configs["consumer.heartbeat.interval.ms"]["value"],
            group_configs["consumer.heartbeat.interval.ms"]["config_source"]) == ("6000", "DYNAMIC_GROUP_CONFIG")
    assert group_configs["consumer.session.timeout.ms"]["config_source"] == "DEFAULT_CONFIG"


async def test_aiokafka_sources(broker: BrokerProcess) -> None:
    name = unique()
    with WireClient(broker.bootstrap) as client:
        assert create(client, topic(name, retention_ms="5000"))[0].error_code == ErrorCode.NONE
    admin = AIOKafkaAdminClient(bootstrap_servers=broker.bootstrap)
    await admin.start()
    try:
        [response] = await admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name)])
    finally:
        await admin.close()
    # aiokafka hands back the raw structs: (error_code, error_message, type, name, entries)
    [(error_code, error_message, _, _, entries)] = response.resources
    assert (error_code, error_message) == (ErrorCode.NONE, "")
    # each entry: (name, value, read_only, config_source, is_sensitive, synonyms)
    sources = {e[0]: (e[1], e[3]) for e in entries}
    assert sources["retention.ms"] == ("5000", TOPIC_CONFIG)
    assert sources["cleanup.policy"] == ("delete", DEFAULT_CONFIG)
    assert {source for n, (_, source) in sources.items() if n != "retention.ms"} == {DEFAULT_CONFIG}


def alter_logger(client: WireClient, name: str, *ops: tuple[str, int, str | None],
                 validate_only: bool = False) -> tuple[int, str | None]:
    return alter(client, BROKER_LOGGER, name, *ops, validate_only=validate_only)


def test_broker_logger_levels(client: WireClient) -> None:
    """Kafka 4.0's answers (its RuntimeLoggerManager) over the broker's Python loggers."""
    logger = "storage.log_manager"

    def level() -> str | None:
        (row,) = describe(client, BROKER_LOGGER, "1", [logger]).configs
        return row.value

    before = level()
    assert alter_logger(client, "1", (logger, SET, "TRACE"), validate_only=True) == (0, None)
    assert level() == before
    # Every change is checked before any is made.
    assert alter_logger(client, "1", (logger, SET, "TRACE"), ("no.such", SET, "INFO")) == (
        ErrorCode.INVALID_CONFIG, "Logger no.such does not exist!")
    assert level() == before
    assert alter_logger(client, "1", (logger, SET, "TRACE")) == (0, None)
    assert level() == "TRACE"
    assert alter_logger(client, "1", (logger, DELETE, None)) == (0, None)
    assert level() == before
    # Kafka 4.0's text for another node names its own id twice.
    assert alter_logger(client, "2", (logger, SET, "INFO")) == (
        ErrorCode.INVALID_REQUEST, "Unexpected node id. Expected 1, but received 1")
    assert alter_logger(client, "x", (logger, SET, "INFO")) == (
        ErrorCode.INVALID_REQUEST, "Node id must be an integer, but it is: x")
    assert alter_logger(client, "1", (logger, SET, None)) == (
        ErrorCode.INVALID_REQUEST, f"Null value not supported for : {logger}")
