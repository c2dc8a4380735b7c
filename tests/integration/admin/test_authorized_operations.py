"""Authorized operations with no authorizer: every operation the resource type supports
(Kafka's `AclEntry.supportedOperations`), only when the client asks, per version, through
Metadata, DescribeCluster and DescribeGroups; raw wire, confluent-kafka and kafka-python."""

from __future__ import annotations

import pytest
from confluent_kafka import Consumer, TopicCollection, TopicPartition
from confluent_kafka.admin import AclOperation as CAclOperation
from confluent_kafka.admin import AdminClient
from kafka import KafkaAdminClient

from protocol.errors import ErrorCode
from protocol.messages.describe_cluster_request import DescribeClusterRequest
from protocol.messages.describe_cluster_response import DescribeClusterResponse
from protocol.messages.describe_groups_request import DescribeGroupsRequest
from protocol.messages.describe_groups_response import DescribeGroupsResponse
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from protocol.messages.metadata_response import MetadataResponse
from tests.broker_process import BrokerProcess
from tests.integration.admin.admin_wire import create, topic
from tests.kafka_wire import WireClient
from tests.names import unique

METADATA, DESCRIBE_GROUPS, DESCRIBE_CLUSTER = 3, 15, 60
TOPIC_OPERATIONS = 0x0DF8  # READ WRITE CREATE DELETE ALTER DESCRIBE DESCRIBE_CONFIGS ALTER_CONFIGS
CLUSTER_OPERATIONS = 0x1FA0  # CREATE ALTER DESCRIBE CLUSTER_ACTION DESCRIBE_CONFIGS ALTER_CONFIGS IDEMPOTENT_WRITE
GROUP_OPERATIONS = 0x0D48  # READ DELETE DESCRIBE DESCRIBE_CONFIGS ALTER_CONFIGS
OMITTED = -(2**31)


@pytest.mark.parametrize("version", range(8, 14))
@pytest.mark.parametrize("include", [True, False])
def test_metadata_operations(broker: BrokerProcess, version: int, include: bool) -> None:
    name, missing = unique(), unique()
    with WireClient(broker.bootstrap) as client:
        assert create(client, topic(name))[0].error_code == ErrorCode.NONE
        request = MetadataRequest(
            topics=[MetadataRequestTopic(name=name), MetadataRequestTopic(name=missing)],
            allow_auto_topic_creation=False,
            include_cluster_authorized_operations=include,
            include_topic_authorized_operations=include,
        )
        response = client.call(METADATA, version, request)
        assert isinstance(response, MetadataResponse)
        # Kafka fills every topic of the response, the unknown one too.
        got = {t.name: (t.error_code, t.topic_authorized_operations) for t in response.topics}
        operations = TOPIC_OPERATIONS if include else OMITTED
        assert got == {
            name: (ErrorCode.NONE, operations),
            missing: (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, operations),
        }
        if version <= 10:
            assert response.cluster_authorized_operations == (CLUSTER_OPERATIONS if include else OMITTED)


@pytest.mark.parametrize("version", [0, 1, 2])
@pytest.mark.parametrize("include", [True, False])
def test_describe_cluster_operations(broker: BrokerProcess, version: int, include: bool) -> None:
    with WireClient(broker.bootstrap) as client:
        response = client.call(
            DESCRIBE_CLUSTER, version, DescribeClusterRequest(include_cluster_authorized_operations=include)
        )
        assert isinstance(response, DescribeClusterResponse)
        assert response.cluster_authorized_operations == (CLUSTER_OPERATIONS if include else OMITTED)


@pytest.mark.parametrize("version", [3, 4, 5, 6])
def test_describe_groups_operations(broker: BrokerProcess, version: int) -> None:
    group = unique("group")
    with WireClient(broker.bootstrap) as client:
        for include in (True, False):
            response = client.call(
                DESCRIBE_GROUPS, version, DescribeGroupsRequest(groups=[group], include_authorized_operations=include)
            )
            assert isinstance(response, DescribeGroupsResponse)
            [described] = response.groups
            if version >= 6:
                # An unknown group is an error from v6, and errors carry no operations.
                assert (described.error_code, described.authorized_operations) == (
                    ErrorCode.GROUP_ID_NOT_FOUND, OMITTED)
            else:
                assert (described.error_code, described.group_state) == (ErrorCode.NONE, "Dead")
                assert described.authorized_operations == (GROUP_OPERATIONS if include else OMITTED)


def test_confluent_authorized_operations(broker: BrokerProcess) -> None:
    name, group = unique(), unique("group")
    with WireClient(broker.bootstrap) as client:
        assert create(client, topic(name))[0].error_code == ErrorCode.NONE
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    described = admin.describe_topics(TopicCollection([name]), include_authorized_operations=True)[name].result(10)
    assert set(described.authorized_operations) == {
        CAclOperation.READ, CAclOperation.WRITE, CAclOperation.CREATE, CAclOperation.DELETE, CAclOperation.ALTER,
        CAclOperation.DESCRIBE, CAclOperation.DESCRIBE_CONFIGS, CAclOperation.ALTER_CONFIGS,
    }
    cluster = admin.describe_cluster(include_authorized_operations=True).result(10)
    assert set(cluster.authorized_operations) == {
        CAclOperation.CREATE, CAclOperation.ALTER, CAclOperation.DESCRIBE, CAclOperation.CLUSTER_ACTION,
        CAclOperation.DESCRIBE_CONFIGS, CAclOperation.ALTER_CONFIGS, CAclOperation.IDEMPOTENT_WRITE,
    }
    # A group that exists: offsets committed by a consumer that never joined.
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        consumer.commit(offsets=[TopicPartition(name, 0, 0)], asynchronous=False)
    finally:
        consumer.close()
    desc = admin.describe_consumer_groups([group], include_authorized_operations=True)[group].result(10)
    assert set(desc.authorized_operations) == {
        CAclOperation.READ, CAclOperation.DELETE, CAclOperation.DESCRIBE, CAclOperation.DESCRIBE_CONFIGS,
        CAclOperation.ALTER_CONFIGS,
    }


def test_kafka_python_cluster_operations(broker: BrokerProcess) -> None:
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        cluster = admin.describe_cluster()
    finally:
        admin.close()
    assert set(cluster["authorized_operations"]) == {
        "CREATE", "ALTER", "DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE",
    }
