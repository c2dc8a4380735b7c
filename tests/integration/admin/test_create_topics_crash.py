"""A broker killed in the middle of a big CreateTopics starts again, and the topic is either
all there or absent: never a topic with missing partitions, never directories that block a
new topic of the same name."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from protocol.errors import ErrorCode
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.create_topics_response import CreateTopicsResponse
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from protocol.messages.metadata_response import MetadataResponse
from tests.broker_process import BrokerProcess, own_broker
from tests.kafka_wire import WireClient
from tests.names import unique

CREATE_TOPICS, METADATA = 19, 3
PARTITIONS = 1000


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    yield from own_broker(tmp_path / "data")


def create_request(name: str) -> CreateTopicsRequest:
    return CreateTopicsRequest(
        topics=[CreatableTopic(name=name, num_partitions=PARTITIONS, replication_factor=1, configs=[])],
        timeout_ms=30_000,
    )


def partitions_on_disk(data_dir: Path, name: str) -> int:
    prefix = name + "-"
    return sum(1 for entry in os.listdir(data_dir) if entry.startswith(prefix))


def kill_mid_creation(broker: BrokerProcess, name: str, seen_dirs: int) -> None:
    """Sends the CreateTopics and kills the broker once `seen_dirs` partition directories
    exist, before the answer is read."""
    with WireClient(broker.bootstrap) as client:
        client.send(CREATE_TOPICS, 7, create_request(name))
        deadline = time.monotonic() + 30
        while partitions_on_disk(broker.data_dir, name) < seen_dirs:
            assert time.monotonic() < deadline, "the broker made no partition directories"
        broker.kill()


def metadata_partitions(client: WireClient, name: str) -> tuple[int, int]:
    response = client.call(METADATA, 9, MetadataRequest(topics=[MetadataRequestTopic(name=name)],
                                                         allow_auto_topic_creation=False))
    assert isinstance(response, MetadataResponse)
    (topic,) = response.topics
    return topic.error_code, len(topic.partitions)


async def produce_and_read_last_partition(bootstrap: str, name: str) -> list[bytes]:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        await producer.send_and_wait(name, b"after-restart", partition=PARTITIONS - 1)
    finally:
        await producer.stop()
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        tp = TopicPartition(name, PARTITIONS - 1)
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        batches = await consumer.getmany(tp, timeout_ms=5000)
        return [r.value for r in batches.get(tp, [])]
    finally:
        await consumer.stop()


@pytest.mark.parametrize("seen_dirs", [1, PARTITIONS])
async def test_a_topic_is_all_there_or_absent_after_a_kill_mid_creation(
    broker: BrokerProcess, seen_dirs: int
) -> None:
    name = unique("crash-create")
    kill_mid_creation(broker, name, seen_dirs)
    broker.start()
    with WireClient(broker.bootstrap) as client:
        error, count = metadata_partitions(client, name)
        assert (error, count) in {
            (ErrorCode.NONE, PARTITIONS),
            (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 0),
        }
        response = client.call(CREATE_TOPICS, 7, create_request(name))
        assert isinstance(response, CreateTopicsResponse)
        (result,) = response.topics
        # Absent: the leftover directories do not block the name. There: it stays.
        expected = ErrorCode.NONE if error else ErrorCode.TOPIC_ALREADY_EXISTS
        assert result.error_code == expected
        assert metadata_partitions(client, name) == (ErrorCode.NONE, PARTITIONS)
    assert await produce_and_read_last_partition(broker.bootstrap, name) == [b"after-restart"]
