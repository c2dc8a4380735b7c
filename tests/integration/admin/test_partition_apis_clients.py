"""DescribeTopicPartitions, DescribeLogDirs, ElectLeaders and AlterReplicaLogDirs through
the admin clients that speak them (kafka-python, confluent-kafka)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from confluent_kafka import ElectionType, KafkaError, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaAdminClient, TopicPartitionReplica
from kafka.errors import NoError, ReplicaNotAvailableError

from tests.broker_process import BrokerProcess


def topic_name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def kp_admin(broker: BrokerProcess) -> Any:
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    yield admin
    admin.close()


def create(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(15)


def test_kafka_python_describe_topic_partitions_pages(broker: BrokerProcess, kp_admin: Any) -> None:
    topic = topic_name("dtp")
    create(broker.bootstrap, topic, 5)
    first = kp_admin.describe_topic_partitions([topic], response_partition_limit=3)
    assert [[p["partition_index"] for p in t["partitions"]] for t in first["topics"]] == [[0, 1, 2]]
    assert first["next_cursor"] == {"topic_name": topic, "partition_index": 3}
    rest = kp_admin.describe_topic_partitions([topic], cursor=first["next_cursor"])
    assert [[p["partition_index"] for p in t["partitions"]] for t in rest["topics"]] == [[3, 4]]
    assert rest["next_cursor"] is None
    assert all(p["leader_id"] == 1 and p["isr_nodes"] == [1] for p in rest["topics"][0]["partitions"])


def test_kafka_python_log_dirs(broker: BrokerProcess, kp_admin: Any) -> None:
    topic = topic_name("ld")
    create(broker.bootstrap, topic, 2)
    described = kp_admin.describe_log_dirs({topic: [0, 1]})
    log_dir = str(broker.data_dir.absolute())
    [broker_dirs] = described
    [result] = broker_dirs["log_dirs"]
    assert (broker_dirs["broker"], result["error_code"], result["log_dir"]) == (1, 0, log_dir)
    assert [(t["name"], sorted(p["partition_index"] for p in t["partitions"])) for t in result["topics"]] == [
        (topic, [0, 1])
    ]
    assert result["total_bytes"] > 0 and result["usable_bytes"] > 0
    moved = kp_admin.alter_replica_log_dirs({
        TopicPartitionReplica(topic, 0, 1): log_dir,
        TopicPartitionReplica(topic, 9, 1): log_dir,
    })
    assert moved == {TopicPartitionReplica(topic, 0, 1): NoError,
                     TopicPartitionReplica(topic, 9, 1): ReplicaNotAvailableError}


def test_confluent_kafka_elect_leaders(broker: BrokerProcess) -> None:
    topic = topic_name("el")
    create(broker.bootstrap, topic, 2)
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    result = admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition(topic, 0), TopicPartition(topic, 1),
                                                          TopicPartition(topic, 4)]).result(15)
    codes = {(tp.topic, tp.partition): (err.code() if err is not None else None) for tp, err in result.items()}
    assert codes == {
        (topic, 0): KafkaError.ELECTION_NOT_NEEDED,
        (topic, 1): KafkaError.ELECTION_NOT_NEEDED,
        (topic, 4): KafkaError.UNKNOWN_TOPIC_OR_PART,
    }
