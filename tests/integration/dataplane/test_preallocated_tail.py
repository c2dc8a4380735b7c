"""The active segment's zeros ahead of its data (`preallocate`, on by default): over the
wire a partition's size is its data's, and after SIGKILL the restarted broker holds exactly
the acknowledged records, in a file cut to them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from kafka import KafkaAdminClient

from tests.broker_process import BrokerProcess, own_broker
from tests.names import unique

RECORDS = 60


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    yield from own_broker(tmp_path / "data")


def partition_size(broker: BrokerProcess, topic: str) -> int:
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        [described] = admin.describe_log_dirs({topic: [0]})
    finally:
        admin.close()
    [log_dir] = described["log_dirs"]
    [entry] = log_dir["topics"]
    [partition] = entry["partitions"]
    return int(partition["partition_size"])


async def consume_all(broker: BrokerProcess, topic: str, count: int) -> list[tuple[int, Any, Any]]:
    consumer = AIOKafkaConsumer(bootstrap_servers=broker.bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek(tp, 0)
        out: list[tuple[int, Any, Any]] = []
        while len(out) < count:
            batch = await consumer.getmany(tp, timeout_ms=5000)
            records = batch.get(tp, [])
            assert records, f"only {len(out)} of {count} records came back"
            out.extend((r.offset, r.key, r.value) for r in records)
        assert await consumer.end_offsets([tp]) == {tp: count}
        return out
    finally:
        await consumer.stop()


async def test_sigkill_with_zeros_at_the_tail_keeps_exactly_the_acknowledged_records(broker: BrokerProcess) -> None:
    topic = unique()
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", enable_idempotence=True)
    await producer.start()
    sent = []
    try:
        for i in range(RECORDS):
            key, value = f"k{i}".encode(), (f"v{i}-" * (i + 1)).encode()
            meta = await producer.send_and_wait(topic, value, key=key, partition=0)
            sent.append((meta.offset, key, value))
    finally:
        await producer.stop()
    assert [o for o, _, _ in sent] == list(range(RECORDS))
    log_file = broker.data_dir / f"{topic}-0" / f"{0:020d}.log"
    data_size = await asyncio.to_thread(partition_size, broker, topic)
    # The flusher's thread writes the zeros after the rounds: wait for them to show.
    deadline = time.monotonic() + 20
    while log_file.stat().st_size <= data_size:
        assert time.monotonic() < deadline, "no zeros were written ahead of the data"
        await asyncio.sleep(0.05)
    assert await consume_all(broker, topic, RECORDS) == sent
    assert await asyncio.to_thread(partition_size, broker, topic) == data_size  # not the file's length

    broker.kill()
    await asyncio.to_thread(broker.start)
    assert await consume_all(broker, topic, RECORDS) == sent
    assert log_file.stat().st_size == data_size  # the zeros cut by recovery
    assert await asyncio.to_thread(partition_size, broker, topic) == data_size
