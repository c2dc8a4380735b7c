"""Clients that use OffsetForLeaderEpoch and fetch sessions, against the real broker.

A consumer resuming from a committed offset that carries a leader epoch validates it
(KIP-320): an offset past the end of that epoch is log truncation, and the consumer moves
to the epoch's end offset instead of its reset policy. kafka-python fetches through
incremental fetch sessions (KIP-227)."""

from __future__ import annotations

import time
import uuid
from typing import Any

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaConsumer
from kafka import TopicPartition as KafkaTopicPartition

from tests.broker_process import BrokerProcess


def topic_name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def create(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        future.result(15)


def produce(bootstrap: str, topic: str, values: list[tuple[int, bytes]]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for partition, value in values:
        producer.produce(topic, value=value, partition=partition)
    assert producer.flush(15) == 0


def test_confluent_kafka_validates_a_position_past_the_epoch_end(broker: BrokerProcess) -> None:
    topic = topic_name("ofle-ck")
    create(broker.bootstrap, topic, 1)
    produce(broker.bootstrap, topic, [(0, b"old%d" % i) for i in range(8)])
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": topic_name("g"),
                         "auto.offset.reset": "earliest", "enable.auto.commit": False,
                         "enable.partition.eof": True})
    # A position with a leader epoch is validated (KIP-320) before the first fetch: epoch 0
    # ends at 8, so the consumer fetches from 8. Without the validation, offset 10 would be
    # out of range and the reset policy would restart it at 0.
    consumer.assign([TopicPartition(topic, 0, 10, leader_epoch=0)])
    try:
        got: list[tuple[int, bytes]] = []
        deadline = time.monotonic() + 20
        # Let it validate and fetch: nothing lies past 8 yet. Its end-of-partition event at
        # 8 shows the validation done; the new records must come after it, or epoch 0 would
        # end at 10 by the time a slow consumer asked and 10 would be a valid position.
        validated_at: int | None = None
        while validated_at is None and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None:
                continue
            assert message.error() is not None, (message.offset(), message.value())
            if message.error().code() == KafkaError._PARTITION_EOF:
                validated_at = message.offset()
        assert validated_at == 8
        produce(broker.bootstrap, topic, [(0, b"new%d" % i) for i in range(2)])
        while time.monotonic() < deadline and len(got) < 2:
            message = consumer.poll(0.5)
            if message is None:
                continue
            if message.error() is not None:
                assert message.error().code() == KafkaError._PARTITION_EOF
                continue
            got.append((message.offset(), message.value()))
    finally:
        consumer.close()
    assert got == [(8, b"new0"), (9, b"new1")]


def test_kafka_python_consumes_through_an_incremental_fetch_session(broker: BrokerProcess) -> None:
    topic = topic_name("fs-kp")
    create(broker.bootstrap, topic, 4)
    first = [(p, b"a%d-%d" % (p, i)) for p in range(4) for i in range(5)]
    produce(broker.bootstrap, topic, first)
    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, enable_auto_commit=False,
                             auto_offset_reset="earliest", fetch_max_wait_ms=100)
    parts = [KafkaTopicPartition(topic, p) for p in range(4)]
    consumer.assign(parts)
    got: dict[int, list[tuple[int, bytes]]] = {p: [] for p in range(4)}

    def drain(total: int) -> None:
        deadline = time.monotonic() + 20
        while sum(map(len, got.values())) < total and time.monotonic() < deadline:
            for tp, records in consumer.poll(timeout_ms=200).items():
                got[tp.partition].extend((r.offset, r.value) for r in records)

    try:
        drain(len(first))
        # Later records reach only two partitions: the session's incremental fetches must
        # bring exactly those.
        second = [(p, b"b%d-%d" % (p, i)) for p in (1, 3) for i in range(3)]
        produce(broker.bootstrap, topic, second)
        drain(len(first) + len(second))
        handler: Any = next(iter(consumer._fetcher._session_handlers.values()))
        session_id, epoch = handler.next_metadata.session_id, handler.next_metadata.epoch
    finally:
        consumer.close()
    expected = {p: [(i, b"a%d-%d" % (p, i)) for i in range(5)] for p in range(4)}
    for p in (1, 3):
        expected[p] += [(5 + i, b"b%d-%d" % (p, i)) for i in range(3)]
    assert got == expected
    # The consumer fetched in a session the broker opened, past its first full fetch.
    assert session_id != 0 and epoch > 1
