"""The config names DescribeConfigs reports are Kafka 4's: a topic's are those of Kafka 4's
`LogConfig`, with its defaults; configs Kafka 4 removed are refused as unknown; a broker's
leave out the settings only this broker has."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, ConfigSource
from confluent_kafka.admin import ConfigResource as CConfigResource

from protocol.errors import ErrorCode
from tests.broker_process import BrokerProcess, own_broker
from tests.integration.admin.admin_wire import create, describe, topic, topic_exists
from tests.kafka_wire import WireClient
from tests.names import unique

TOPIC, BROKER = 2, 4

# Kafka 4.x `LogConfig.configKeys()` without the internal `internal.segment.bytes`, each with
# the default Kafka describes (but `preallocate`).
KAFKA_4_TOPIC_CONFIGS = {
    "cleanup.policy": "delete",
    "compression.gzip.level": "-1",
    "compression.lz4.level": "9",
    "compression.type": "producer",
    "compression.zstd.level": "3",
    "delete.retention.ms": "86400000",
    "file.delete.delay.ms": "60000",
    "flush.messages": "9223372036854775807",
    "flush.ms": "9223372036854775807",
    "follower.replication.throttled.replicas": "",
    "index.interval.bytes": "4096",
    "leader.replication.throttled.replicas": "",
    "local.retention.bytes": "-2",
    "local.retention.ms": "-2",
    "max.compaction.lag.ms": "9223372036854775807",
    "max.message.bytes": "1048588",
    "message.timestamp.after.max.ms": "3600000",
    "message.timestamp.before.max.ms": "9223372036854775807",
    "message.timestamp.type": "CreateTime",
    "min.cleanable.dirty.ratio": "0.5",
    "min.compaction.lag.ms": "0",
    "min.insync.replicas": "1",
    "preallocate": "true",  # Kafka's is false: docs/operations.md
    "remote.log.copy.disable": "false",
    "remote.log.delete.on.disable": "false",
    "remote.storage.enable": "false",
    "retention.bytes": "-1",
    "retention.ms": "604800000",
    "segment.bytes": "1073741824",
    "segment.index.bytes": "10485760",
    "segment.jitter.ms": "0",
    "segment.ms": "604800000",
    "unclean.leader.election.enable": "false",
}

# Settings of this broker that Kafka's broker configs do not have.
ODRADEK_ONLY_SETTINGS = {
    "cluster.id", "connection.max.in.flight.requests", "log.format", "log.level", "metrics.host", "metrics.port",
}


def test_topic_configs_are_kafka_4s_with_its_defaults(broker: BrokerProcess) -> None:
    name = unique()
    with WireClient(broker.bootstrap) as client:
        assert create(client, topic(name))[0].error_code == ErrorCode.NONE
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    resource = CConfigResource(CConfigResource.Type.TOPIC, name)
    configs = admin.describe_configs([resource])[resource].result(10)
    assert {n: c.value for n, c in configs.items()} == KAFKA_4_TOPIC_CONFIGS
    assert {c.source for c in configs.values()} == {ConfigSource.DEFAULT_CONFIG.value}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("message.format.version", "3.0-IV1"),
        ("message.timestamp.difference.max.ms", "1000"),
        ("message.downconversion.enable", "true"),
    ],
)
def test_configs_kafka_4_removed_are_unknown(broker: BrokerProcess, name: str, value: str) -> None:
    topic_name = unique()
    with WireClient(broker.bootstrap) as client:
        [result] = create(client, topic(topic_name, **{name.replace(".", "_"): value}))
        assert (result.error_code, result.error_message) == (
            ErrorCode.INVALID_CONFIG, f"Unknown topic config name: {name}"
        )
        assert not topic_exists(client, topic_name)


def test_the_remote_log_configs_kafka_4_added_are_set_and_described(broker: BrokerProcess) -> None:
    name = unique()
    with WireClient(broker.bootstrap) as client:
        created = create(client, topic(name, remote_log_delete_on_disable="true"))
        assert created[0].error_code == ErrorCode.NONE
        result = describe(client, TOPIC, name, ["remote.log.delete.on.disable", "remote.log.copy.disable"])
    assert {c.name: (c.value, c.config_source) for c in result.configs} == {
        "remote.log.delete.on.disable": ("true", ConfigSource.DYNAMIC_TOPIC_CONFIG.value),
        "remote.log.copy.disable": ("false", ConfigSource.DEFAULT_CONFIG.value),
    }


@pytest.fixture
def configured_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    """A broker with each of its own settings changed from the default."""
    yield from own_broker(
        tmp_path / "data",
        {"log.level": "debug", "log.format": "json", "metrics.port": "0", "connection.max.in.flight.requests": "64",
         "cluster.id": "kafka-names-cluster"},
    )


def test_broker_configs_leave_out_this_brokers_own_settings(configured_broker: BrokerProcess) -> None:
    admin = AdminClient({"bootstrap.servers": configured_broker.bootstrap})
    resource = CConfigResource(CConfigResource.Type.BROKER, "1")
    configs = admin.describe_configs([resource])[resource].result(10)
    assert set(configs) & ODRADEK_ONLY_SETTINGS == set()
    assert configs["num.partitions"].value == "1"
    with WireClient(configured_broker.bootstrap) as client:
        asked = describe(client, BROKER, "1", [*sorted(ODRADEK_ONLY_SETTINGS), "num.partitions"], include_synonyms=True)
    assert (asked.error_code, [c.name for c in asked.configs]) == (ErrorCode.NONE, ["num.partitions"])


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("compression.gzip.level", "0", "Value must be between 1 and 9 or equal to -1"),
        ("compression.lz4.level", "18", "Value must be no more than 17"),
        ("compression.zstd.level", "-131073", "Value must be at least -131072"),
        ("segment.bytes", "1048575", "Value must be at least 1048576"),
        ("compression.type", "none", "String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer"),
        ("leader.replication.throttled.replicas", "0:1,x",
         "leader.replication.throttled.replicas must be the literal '*' or a list of replicas in the following "
         "format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."),
    ],
)
def test_values_are_refused_in_kafkas_words(broker: BrokerProcess, name: str, value: str, problem: str) -> None:
    with WireClient(broker.bootstrap) as client:
        [result] = create(client, topic(unique(), **{name.replace(".", "_"): value}))
    assert (result.error_code, result.error_message) == (
        ErrorCode.INVALID_CONFIG, f"Invalid value {value} for configuration {name}: {problem}"
    )


def test_throttled_replica_lists_kafka_accepts(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as client:
        for value in ("*", "0:1,1:1", ""):
            [result] = create(client, topic(unique(), follower_replication_throttled_replicas=value))
            assert result.error_code == ErrorCode.NONE, (value, result.error_message)
