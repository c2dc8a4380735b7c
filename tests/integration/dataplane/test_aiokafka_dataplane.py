"""aiokafka produces and consumes exact records through the real broker process."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from tests.broker_process import BrokerProcess
from tests.names import unique

# A fetch waits up to 5 s for data; a parked fetch must be answered within 1 s of an append.
LONG_POLL_MAX_WAIT_MS = 5000
LONG_POLL_MAX_LATENCY_S = 1.0
# How long a read waits for the records it expects (a bound, not a pause).
READ_TIMEOUT_S = 60.0


async def create_topic(bootstrap: str, name: str, partitions: int = 1) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(name, partitions, 1)])
    finally:
        await admin.close()


async def read_all(bootstrap: str, topic: str, partitions: list[int], expected: int, **kwargs: object) -> list:  # type: ignore[type-arg]
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, **kwargs)  # type: ignore[arg-type]
    await consumer.start()
    try:
        tps = [TopicPartition(topic, p) for p in partitions]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        return await poll_records(consumer, expected)
    finally:
        await consumer.stop()


async def poll_records(consumer: AIOKafkaConsumer, expected: int, *partitions: TopicPartition) -> list:  # type: ignore[type-arg]
    """Up to `expected` records, or what came within READ_TIMEOUT_S. An empty getmany proves
    nothing: on a loaded machine the consumer's first Fetch (after its metadata and the
    offset lookup of a seek) may simply not have been answered yet."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + READ_TIMEOUT_S
    got: list = []  # type: ignore[type-arg]
    while len(got) < expected and (remaining := deadline - loop.time()) > 0:
        batch = await consumer.getmany(*partitions, timeout_ms=int(min(remaining, 5) * 1000))
        for records in batch.values():
            got.extend(records)
    return got


@pytest.mark.parametrize("compression", [None, "gzip", "snappy", "lz4", "zstd"])
async def test_records_round_trip_exactly(broker: BrokerProcess, compression: str | None) -> None:
    topic = unique("exact")
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", compression_type=compression)
    await producer.start()
    sent = [
        (b"key-0", b"value-0", [("h1", b"a"), ("h2", b"")], 1_700_000_000_000),
        (None, b"no key", [], 1_700_000_000_001),
        (b"no value", None, [("h", None)], 1_700_000_000_002),
        (b"", b"", [], 1_700_000_000_004),
        ("ключ".encode(), "значение".encode() * 100, [("ünïcode", b"\x00\xff")], 1_700_000_000_005),
    ]
    try:
        offsets = []
        for key, value, headers, ts in sent:
            md = await producer.send_and_wait(topic, value=value, key=key, headers=headers, timestamp_ms=ts)
            offsets.append(md.offset)
    finally:
        await producer.stop()
    assert offsets == list(range(len(sent)))
    got = await read_all(broker.bootstrap, topic, [0], len(sent))
    assert [(r.offset, r.key, r.value, list(r.headers), r.timestamp) for r in got] == [
        (i, k, v, [(hk, hv) for hk, hv in h], ts) for i, (k, v, h, ts) in enumerate(sent)
    ]


async def test_many_partitions_each_get_their_records(broker: BrokerProcess) -> None:
    topic = unique("many")
    partitions = 24
    await create_topic(broker.bootstrap, topic, partitions)
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, acks=1, linger_ms=5)
    await producer.start()
    try:
        futures = [
            await producer.send(topic, value=f"{p}:{i}".encode(), partition=p)
            for i in range(20)
            for p in range(partitions)
        ]
        results = [await f for f in futures]
    finally:
        await producer.stop()
    for p in range(partitions):
        assert sorted(md.offset for md in results if md.partition == p) == list(range(20))
    got = await read_all(broker.bootstrap, topic, list(range(partitions)), 20 * partitions)
    by_partition: dict[int, list[bytes]] = {}
    for r in got:
        by_partition.setdefault(r.partition, []).append(r.value)
    assert by_partition == {p: [f"{p}:{i}".encode() for i in range(20)] for p in range(partitions)}


async def test_message_up_to_message_max_bytes(broker: BrokerProcess) -> None:
    topic = unique("big")
    value = bytes(range(256)) * (1_000_000 // 256)
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", max_request_size=2_000_000)
    await producer.start()
    try:
        md = await producer.send_and_wait(topic, value=value)
        assert md.offset == 0
        with pytest.raises(Exception) as too_large:
            await producer.send_and_wait(topic, value=b"x" * 1_100_000)
        assert "MessageSizeTooLarge" in type(too_large.value).__name__ or "too large" in str(too_large.value).lower()
    finally:
        await producer.stop()
    got = await read_all(broker.bootstrap, topic, [0], 1, max_partition_fetch_bytes=1024)
    assert [r.value for r in got] == [value]


async def test_seek_and_offsets_by_time(broker: BrokerProcess) -> None:
    topic = unique("seek")
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, acks="all")
    await producer.start()
    base = 1_700_000_100_000
    try:
        for i in range(10):
            await producer.send_and_wait(topic, value=str(i).encode(), timestamp_ms=base + i * 1000)
    finally:
        await producer.stop()
    consumer = AIOKafkaConsumer(bootstrap_servers=broker.bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        assert await consumer.beginning_offsets([tp]) == {tp: 0}
        assert await consumer.end_offsets([tp]) == {tp: 10}
        found = await consumer.offsets_for_times({tp: base + 4500})
        assert found[tp] is not None
        assert (found[tp].offset, found[tp].timestamp) == (5, base + 5000)
        assert (await consumer.offsets_for_times({tp: base + 99_000}))[tp] is None
        consumer.seek(tp, 7)
        assert [int(r.value) for r in await poll_records(consumer, 3, tp)] == [7, 8, 9]
        await consumer.seek_to_end(tp)
        assert await consumer.position(tp) == 10
    finally:
        await consumer.stop()


async def test_consumer_waits_for_records_produced_later(broker: BrokerProcess) -> None:
    """A fetch parked at the log end is answered when a record arrives, not at its max wait."""
    topic = unique("longpoll")
    await create_topic(broker.bootstrap, topic)
    consumer = AIOKafkaConsumer(
        bootstrap_servers=broker.bootstrap, enable_auto_commit=False, fetch_max_wait_ms=LONG_POLL_MAX_WAIT_MS
    )
    await consumer.start()
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap)
    await producer.start()
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        loop = asyncio.get_running_loop()
        fetch = asyncio.ensure_future(consumer.getone())
        # Long enough for the consumer's Fetch to be parked, well inside its max wait.
        await asyncio.sleep(1.0)
        assert not fetch.done()
        sent_at = loop.time()
        await producer.send_and_wait(topic, value=b"late")
        record = await asyncio.wait_for(fetch, 10)
        latency = loop.time() - sent_at
        assert (record.offset, record.value) == (0, b"late")
        # Answered by the append's wake-up: a fetch that only returned at its max wait
        # would arrive about 4 s after the send.
        assert latency < LONG_POLL_MAX_LATENCY_S, f"record arrived {latency:.3f}s after it was sent"
    finally:
        await producer.stop()
        await consumer.stop()
