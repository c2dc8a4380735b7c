"""A user's test file: the odradek pytest plugin's fixtures with aiokafka. The tests of this
directory run it in a pytest process of its own; it is not collected here."""

from __future__ import annotations

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.errors import UnknownTopicOrPartitionError


async def test_round_trip(odradek_bootstrap: str) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=odradek_bootstrap)
    await producer.start()
    try:
        await producer.send_and_wait("orders", b"first", key=b"k")
        # Auto-created with the partitions the ini file asked for.
        assert producer.client.cluster.partitions_for_topic("orders") == {0, 1, 2}
    finally:
        await producer.stop()
    consumer = AIOKafkaConsumer("orders", bootstrap_servers=odradek_bootstrap, auto_offset_reset="earliest")
    await consumer.start()
    try:
        batches = await consumer.getmany(timeout_ms=10_000)
    finally:
        await consumer.stop()
    assert [(m.key, m.value) for ms in batches.values() for m in ms] == [(b"k", b"first")]


async def test_own_brokers_from_the_factory(odradek_broker_factory) -> None:  # type: ignore[no-untyped-def]
    two = odradek_broker_factory(num_partitions=2)
    closed = odradek_broker_factory(auto_create_topics=False)
    producer = AIOKafkaProducer(bootstrap_servers=two.bootstrap)
    await producer.start()
    try:
        await producer.send_and_wait("events", b"x")
        assert producer.client.cluster.partitions_for_topic("events") == {0, 1}
    finally:
        await producer.stop()
    producer = AIOKafkaProducer(bootstrap_servers=closed.bootstrap, request_timeout_ms=2000)
    await producer.start()
    try:
        with pytest.raises(UnknownTopicOrPartitionError):
            await producer.send_and_wait("events", b"x")
    finally:
        await producer.stop()
