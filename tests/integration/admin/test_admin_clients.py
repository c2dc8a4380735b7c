"""Topic and config administration through stock admin clients: aiokafka, confluent-kafka
and kafka-python, against the real broker process."""

from __future__ import annotations

from typing import Any

import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewPartitions, NewTopic, RecordsToDelete
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.structs import TopicPartition
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka import TopicPartition as CTopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigSource
from confluent_kafka.admin import ConfigResource as CConfigResource
from confluent_kafka.admin import NewPartitions as CNewPartitions
from confluent_kafka.admin import NewTopic as CNewTopic
from kafka import KafkaAdminClient
from kafka.admin import ConfigResource as KConfigResource
from kafka.admin import ConfigResourceType as KConfigResourceType
from kafka.admin import NewPartitions as KNewPartitions
from kafka.admin import NewTopic as KNewTopic

from protocol.errors import ErrorCode
from protocol.messages.create_topics_request import CreateTopicsRequest
from protocol.messages.create_topics_response import CreateTopicsResponse
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from protocol.messages.metadata_response import MetadataResponse
from tests.broker_process import BrokerProcess
from tests.integration.admin.admin_wire import CREATE_TOPICS, describe, topic
from tests.kafka_wire import WireClient
from tests.names import unique

# librdkafka passes the wire's config source through: Kafka's numbering, which its enum shares.
DYNAMIC_TOPIC_CONFIG, DEFAULT_CONFIG = ConfigSource.DYNAMIC_TOPIC_CONFIG.value, ConfigSource.DEFAULT_CONFIG.value


# --- aiokafka -------------------------------------------------------------------------


async def test_aiokafka_topic_lifecycle(bootstrap: str) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    name, bad = unique(), unique()
    try:
        response = await admin.create_topics(
            [
                NewTopic(name, 2, 1, topic_configs={"retention.ms": "60000"}),
                NewTopic(bad, 1, 3),
                NewTopic("bad name", 1, 1),
            ]
        )
        errors = {t[0]: t[1] for t in response.topic_errors}
        assert errors == {
            name: 0,
            bad: ErrorCode.INVALID_REPLICATION_FACTOR,
            "bad name": ErrorCode.INVALID_TOPIC_EXCEPTION,
        }
        assert name in await admin.list_topics()
        [described] = await admin.describe_configs(
            [ConfigResource(ConfigResourceType.TOPIC, name, {"retention.ms": None})]
        )
        [resource] = described.resources
        assert resource[0] == 0
        assert [(e[0], e[1]) for e in resource[4]] == [("retention.ms", "60000")]

        await admin.alter_configs(
            [ConfigResource(ConfigResourceType.TOPIC, name, {"retention.ms": "120000"})]
        )
        [described] = await admin.describe_configs(
            [ConfigResource(ConfigResourceType.TOPIC, name, {"retention.ms": None})]
        )
        assert described.resources[0][4][0][1] == "120000"

        await admin.create_partitions({name: NewPartitions(4)})
        [meta] = await admin.describe_topics([name])
        assert len(meta["partitions"]) == 4

        producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
        await producer.start()
        try:
            for i in range(5):
                await producer.send_and_wait(name, f"v{i}".encode(), partition=0)
        finally:
            await producer.stop()
        low = await admin.delete_records({TopicPartition(name, 0): RecordsToDelete(3)})
        assert low == {TopicPartition(name, 0): 3}
        low = await admin.delete_records({TopicPartition(name, 0): RecordsToDelete(-1)})
        assert low == {TopicPartition(name, 0): 5}

        cluster = await admin.describe_cluster()
        assert [b["node_id"] for b in cluster["brokers"]] == [1]

        response = await admin.delete_topics([name])
        assert [tuple(t[:2]) for t in response.topic_error_codes] == [(name, 0)]
        assert name not in await admin.list_topics()
        response = await admin.create_topics([NewTopic(name, 1, 1)])
        assert [t[1] for t in response.topic_errors] == [0]
    finally:
        await admin.close()


# --- confluent-kafka ------------------------------------------------------------------


def _error(future: Any) -> KafkaError | None:
    try:
        future.result(10)
    except KafkaException as exc:
        err: KafkaError = exc.args[0]
        return err
    return None


@pytest.fixture
def confluent(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap})


def test_confluent_create_topic_errors(confluent: AdminClient) -> None:
    existing = unique()
    assert _error(confluent.create_topics([CNewTopic(existing, 1, 1)])[existing]) is None
    cases = {
        existing: CNewTopic(existing, 1, 1),
        "bad/name": CNewTopic("bad/name", 1, 1),
        "rf": CNewTopic(unique(), 1, 3),
        "cfg": CNewTopic(unique(), 1, 1, config={"retention.ms": "forever"}),
    }
    futures = confluent.create_topics(list(cases.values()))
    errors = {key: _error(futures[t.topic]) for key, t in cases.items()}
    exists = errors[existing]
    assert exists is not None and exists.code() == KafkaError.TOPIC_ALREADY_EXISTS
    assert exists.str() == f"Topic '{existing}' already exists."
    assert errors["bad/name"] is not None and errors["bad/name"].code() == KafkaError.TOPIC_EXCEPTION
    assert errors["rf"] is not None and errors["rf"].code() == KafkaError.INVALID_REPLICATION_FACTOR
    assert "cannot be reached because only 1 broker(s) are registered" in errors["rf"].str()
    assert errors["cfg"] is not None and errors["cfg"].code() == KafkaError.INVALID_CONFIG

    ghost = unique()
    assert _error(confluent.create_topics([CNewTopic(ghost, 3, 1)], validate_only=True)[ghost]) is None
    assert ghost not in confluent.list_topics(timeout=10).topics


def test_confluent_configs_partitions_records_and_delete(confluent: AdminClient, bootstrap: str) -> None:
    name = unique()
    assert (
        _error(confluent.create_topics([CNewTopic(name, 1, 1, config={"cleanup.policy": "delete"})])[name])
        is None
    )

    resource = CConfigResource(CConfigResource.Type.TOPIC, name)
    ops = [
        ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET),
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND),
    ]
    resource_ops = CConfigResource(CConfigResource.Type.TOPIC, name, incremental_configs=ops)
    assert _error(confluent.incremental_alter_configs([resource_ops])[resource_ops]) is None
    bad = CConfigResource(
        CConfigResource.Type.TOPIC,
        name,
        incremental_configs=[
            ConfigEntry("retention.ms", "1", incremental_operation=AlterConfigOpType.APPEND)
        ],
    )
    err = _error(confluent.incremental_alter_configs([bad])[bad])
    assert err is not None and err.code() == KafkaError.INVALID_CONFIG

    configs = confluent.describe_configs([resource])[resource].result(10)
    assert configs["retention.ms"].value == "3600000"
    assert configs["retention.ms"].source == DYNAMIC_TOPIC_CONFIG
    assert configs["cleanup.policy"].value == "delete,compact"
    assert configs["segment.bytes"].source == DEFAULT_CONFIG

    broker = CConfigResource(CConfigResource.Type.BROKER, "1")
    broker_configs = confluent.describe_configs([broker])[broker].result(10)
    assert broker_configs["num.partitions"].value == "1" and broker_configs["num.partitions"].is_read_only

    # Legacy AlterConfigs replaces every override.
    replace = CConfigResource(CConfigResource.Type.TOPIC, name, set_config={"retention.ms": "7200000"})
    assert _error(confluent.alter_configs([replace])[replace]) is None
    configs = confluent.describe_configs([resource])[resource].result(10)
    assert configs["cleanup.policy"].source == DEFAULT_CONFIG

    futures = confluent.create_partitions([CNewPartitions(name, 3)])
    assert _error(futures[name]) is None
    err = _error(confluent.create_partitions([CNewPartitions(name, 2)])[name])
    assert err is not None and err.code() == KafkaError.INVALID_PARTITIONS

    result = confluent.delete_records([CTopicPartition(name, 0, 0)])
    assert result[CTopicPartition(name, 0, 0)].result(10).low_watermark == 0
    result = confluent.delete_records([CTopicPartition(name, 0, 5)])
    err = _error(result[CTopicPartition(name, 0, 5)])
    assert err is not None and err.code() == KafkaError.OFFSET_OUT_OF_RANGE

    cluster = confluent.describe_cluster().result(10)
    assert [n.id for n in cluster.nodes] == [1]
    assert cluster.controller is not None and cluster.controller.id == 1

    assert _error(confluent.delete_topics([name])[name]) is None
    err = _error(confluent.delete_topics([name])[name])
    assert err is not None and err.code() == KafkaError.UNKNOWN_TOPIC_OR_PART
    assert _error(confluent.create_topics([CNewTopic(name, 1, 1)])[name]) is None


# --- kafka-python ---------------------------------------------------------------------


def test_kafka_python_topic_and_config_admin(bootstrap: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    name = unique()
    try:
        admin.create_topics([KNewTopic(name, 2, 1, topic_configs={"retention.ms": "90000"})])
        assert name in admin.list_topics()
        resource = KConfigResource(KConfigResourceType.TOPIC, name)
        described = admin.describe_configs([resource])
        assert "retention.ms" in str(described) and "90000" in str(described)

        admin.alter_configs(
            [KConfigResource(KConfigResourceType.TOPIC, name, configs={"retention.ms": "180000"})]
        )
        assert "180000" in str(admin.describe_configs([resource]))

        admin.create_partitions({name: KNewPartitions(5)})
        [meta] = admin.describe_topics([name])
        assert len(meta["partitions"]) == 5

        admin.delete_topics([name])
        assert name not in admin.list_topics()
    finally:
        admin.close()


# --- persistence ----------------------------------------------------------------------


async def test_catalog_survives_restart(fresh_broker: BrokerProcess) -> None:
    name = unique()
    with WireClient(fresh_broker.bootstrap) as c:
        response = c.call(CREATE_TOPICS, 7, CreateTopicsRequest(topics=[topic(name, 3, retention_ms="4242")]))
        assert isinstance(response, CreateTopicsResponse)
        [created] = response.topics
        assert created.error_code == 0
    fresh_broker.restart()
    with WireClient(fresh_broker.bootstrap) as c:
        response = c.call(CREATE_TOPICS, 7, CreateTopicsRequest(topics=[topic(name, 3)], validate_only=True))
        assert isinstance(response, CreateTopicsResponse)
        assert response.topics[0].error_code == ErrorCode.TOPIC_ALREADY_EXISTS
        config = describe(c, 2, name, ["retention.ms"])
        assert [(e.name, e.value) for e in config.configs] == [("retention.ms", "4242")]
    admin = AIOKafkaAdminClient(bootstrap_servers=fresh_broker.bootstrap)
    await admin.start()
    try:
        [meta] = await admin.describe_topics([name])
        assert len(meta["partitions"]) == 3
    finally:
        await admin.close()
    with WireClient(fresh_broker.bootstrap) as c:
        metadata = c.call(3, 12, MetadataRequest(topics=[MetadataRequestTopic(name=name)]))
        assert isinstance(metadata, MetadataResponse)
        assert metadata.topics[0].topic_id == created.topic_id
