"""Records become visible to consumers (high watermark, ListOffsets latest, Fetch) once they
are durable, yet a client answered at acks=1 or acks=0 never finds its records missing: the
append starts the fsync round itself, and a Fetch, a consumer's ListOffsets and
DeleteRecords first wait for the round already covering them."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.delete_records_request import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsTopic,
)
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.list_offsets_request import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient, create_topic
from tests.names import unique

ROUNDS = 30  # produce-then-look repetitions: each is one chance to catch a stale answer
READ_UNCOMMITTED, READ_COMMITTED = 0, 1


def batch(i: int, n: int = 2) -> bytes:
    return rb.build_batch([rb.Record(b"k%d" % j, b"v%d-%d" % (i, j), [], 1_700_000_000_000 + i) for j in range(n)])


def produce(c: WireClient, topic: str, records: bytes, acks: int) -> int | None:
    request = ProduceRequest(acks=acks, timeout_ms=10_000, topic_data=[
        TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=records)])
    ])
    if acks == 0:
        c.send(0, 9, request)
        return None
    resp: Any = c.call(0, 9, request)
    p = resp.responses[0].partition_responses[0]
    assert p.error_code == ErrorCode.NONE
    base: int = p.base_offset
    return base


def latest(c: WireClient, topic: str, level: int) -> int:
    resp: Any = c.call(2, 7, ListOffsetsRequest(replica_id=-1, isolation_level=level, topics=[
        ListOffsetsTopic(name=topic, partitions=[ListOffsetsPartition(partition_index=0, timestamp=-1)])
    ]))
    p = resp.topics[0].partitions[0]
    assert p.error_code == ErrorCode.NONE
    offset: int = p.offset
    return offset


def fetch(c: WireClient, topic: str, offset: int, *, max_wait_ms: int = 0) -> tuple[list[int], int]:
    """Offsets of the records returned from `offset` (Fetch v11, min_bytes 1), and the high watermark."""
    resp: Any = c.call(1, 11, FetchRequest(
        max_wait_ms=max_wait_ms, min_bytes=1, max_bytes=1 << 20, isolation_level=READ_UNCOMMITTED,
        topics=[FetchTopic(topic=topic, partitions=[FetchPartition(partition=0, fetch_offset=offset,
                                                                    partition_max_bytes=1 << 20)])],
    ))
    p = resp.responses[0].partitions[0]
    assert p.error_code == ErrorCode.NONE
    offsets = [r.offset for b in rb.decode_batches(p.records or b"") for r in b.records]
    return offsets, p.high_watermark


def test_acks1_then_list_offsets_latest_counts_the_records(broker: BrokerProcess) -> None:
    topic = unique("vis-lo")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        for i in range(ROUNDS):
            assert produce(c, topic, batch(i), acks=1) == 2 * i
            assert latest(c, topic, READ_UNCOMMITTED) == 2 * i + 2
            assert latest(c, topic, READ_COMMITTED) == 2 * i + 2


def test_acks1_then_fetch_without_waiting_returns_the_records(broker: BrokerProcess) -> None:
    topic = unique("vis-fetch")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        for i in range(ROUNDS):
            produce(c, topic, batch(i), acks=1)
            assert fetch(c, topic, 2 * i) == ([2 * i, 2 * i + 1], 2 * i + 2)


def test_acks1_then_delete_records_to_the_high_watermark(broker: BrokerProcess) -> None:
    topic = unique("vis-del")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        for i in range(ROUNDS):
            produce(c, topic, batch(i), acks=1)
            resp: Any = c.call(21, 2, DeleteRecordsRequest(timeout_ms=10_000, topics=[
                DeleteRecordsTopic(name=topic, partitions=[DeleteRecordsPartition(partition_index=0, offset=-1)])
            ]))
            p = resp.topics[0].partitions[0]
            assert (p.error_code, p.low_watermark) == (ErrorCode.NONE, 2 * i + 2)


def test_acks0_records_become_visible_without_a_waiter(broker: BrokerProcess) -> None:
    """Nobody waits for an acks=0 write, yet its round starts: a parked fetch gets it."""
    topic = unique("vis-acks0")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        for i in range(5):
            produce(c, topic, batch(i, 3), acks=0)
        assert fetch(c, topic, 12, max_wait_ms=10_000) == ([12, 13, 14], 15)
        assert latest(c, topic, READ_UNCOMMITTED) == 15


def test_a_parked_fetch_wakes_for_an_acks1_write(broker: BrokerProcess) -> None:
    topic = unique("vis-park")
    with WireClient(broker.bootstrap) as consumer, WireClient(broker.bootstrap) as producer:
        create_topic(producer, topic)
        produce(producer, topic, batch(0), acks=1)
        cid = consumer.send(1, 11, FetchRequest(
            max_wait_ms=30_000, min_bytes=1, max_bytes=1 << 20, isolation_level=READ_UNCOMMITTED,
            topics=[FetchTopic(topic=topic, partitions=[FetchPartition(partition=0, fetch_offset=2,
                                                                        partition_max_bytes=1 << 20)])],
        ))
        # Parked: nothing to answer yet.
        consumer.sock.settimeout(0.2)
        try:
            consumer.sock.recv(1, socket.MSG_PEEK)
            raise AssertionError("the fetch was answered before any record at its offset")
        except TimeoutError:
            pass
        consumer.sock.settimeout(10)
        produce(producer, topic, batch(1, 3), acks=1)
        got, response = consumer.recv(1, 11)
        assert got == cid
        p: Any = response.responses[0].partitions[0]  # type: ignore[attr-defined]
        assert [r.offset for b in rb.decode_batches(p.records) for r in b.records] == [2, 3, 4]
        assert p.high_watermark == 5


async def test_aiokafka_acks1_produce_then_consume_exact_records(broker: BrokerProcess) -> None:
    topic = unique("vis-aio")
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, acks=1, linger_ms=0)
    await producer.start()
    try:
        sent = [(b"k%d" % i, b"value-%d" % i) for i in range(200)]
        offsets = []
        for start in range(0, len(sent), 50):
            futures = [await producer.send(topic, value, key=key, partition=0) for key, value in sent[start:start + 50]]
            offsets += [(await f).offset for f in futures]
        assert offsets == list(range(200))
    finally:
        await producer.stop()
    consumer = AIOKafkaConsumer(bootstrap_servers=broker.bootstrap, enable_auto_commit=False,
                                auto_offset_reset="earliest")
    await consumer.start()
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        # Asked right after the last acknowledgement: the end counts every record.
        assert (await consumer.end_offsets([tp]))[tp] == 200
        got: list[tuple[int, bytes | None, bytes | None]] = []
        async with asyncio.timeout(30):
            while len(got) < 200:
                for records in (await consumer.getmany(timeout_ms=5000)).values():
                    got += [(r.offset, r.key, r.value) for r in records]
        assert got == [(i, key, value) for i, (key, value) in enumerate(sent)]
    finally:
        await consumer.stop()
