"""A parked Fetch is answered as soon as its partition changes, not at `max_wait_ms`.

The storage engine signals every append (client batches and the transaction markers the
coordinator writes), so a read_committed consumer parked at the last stable offset gets a
committed transaction's records when the COMMIT marker moves the LSO.
"""

from __future__ import annotations

import asyncio
import struct
import time

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from protocol import record_batch as rb
from protocol.codec import Reader
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.fetch_response import FetchResponse
from protocol.messages.response_header import ResponseHeader
from storage.engine import READ_COMMITTED, READ_UNCOMMITTED
from tests.broker_process import BrokerProcess
from tests.kafka_wire import encode_request
from tests.names import unique

FETCH = 1
FETCH_VERSION = 12  # topics by name, flexible: response header v1
MAX_WAIT_MS = 30_000
# Well below the max wait (a third: room for a loaded machine): the answer comes from the
# wake-up, not the timeout.
WAKE_LIMIT_S = 10.0
PARK_S = 0.3


async def create_topic(bootstrap: str, name: str) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(name, 1, 1)])
    finally:
        await admin.close()


class ParkedFetch:
    """One raw Fetch of partition 0 at `offset` with min_bytes 1 and a long max wait."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.response: asyncio.Task[FetchResponse] | None = None

    @classmethod
    async def send(cls, port: int, topic: str, offset: int, isolation_level: int) -> ParkedFetch:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        fetch = cls(reader, writer)
        request = FetchRequest(
            max_wait_ms=MAX_WAIT_MS,
            min_bytes=1,
            max_bytes=1 << 20,
            isolation_level=isolation_level,
            topics=[FetchTopic(topic=topic, partitions=[
                FetchPartition(partition=0, fetch_offset=offset, partition_max_bytes=1 << 20)
            ])],
        )
        writer.write(encode_request(FETCH, FETCH_VERSION, request, 1))
        await writer.drain()
        fetch.response = asyncio.ensure_future(fetch._receive())
        return fetch

    async def _receive(self) -> FetchResponse:
        size = struct.unpack(">i", await self.reader.readexactly(4))[0]
        r = Reader(await self.reader.readexactly(size))
        assert ResponseHeader.read(r, 1).correlation_id == 1
        return FetchResponse.read(r, FETCH_VERSION)

    async def assert_parked(self) -> None:
        """Gives the broker time to read and park the request; it must not have answered."""
        await asyncio.sleep(PARK_S)
        assert self.response is not None and not self.response.done(), "the fetch should be waiting for data"

    def close(self) -> None:
        if self.response is not None:
            self.response.cancel()
        self.writer.close()


async def test_read_committed_fetch_wakes_on_commit_marker(broker: BrokerProcess) -> None:
    topic = unique("wake-commit")
    await create_topic(broker.bootstrap, topic)
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, transactional_id=f"tx-{topic}")
    await producer.start()
    fetch: ParkedFetch | None = None
    try:
        await producer.begin_transaction()
        meta = await producer.send_and_wait(topic, value=b"committed", partition=0)
        assert meta.offset == 0
        # The record is in the log (high watermark 1) but above the LSO (0): parked.
        fetch = await ParkedFetch.send(broker.port, topic, 0, READ_COMMITTED)
        await fetch.assert_parked()
        started = time.monotonic()
        await producer.commit_transaction()
        assert fetch.response is not None
        response = await asyncio.wait_for(fetch.response, MAX_WAIT_MS / 1000 + 5)
        waited = time.monotonic() - started
    finally:
        if fetch is not None:
            fetch.close()
        await producer.stop()
    data = response.responses[0].partitions[0]
    assert data.error_code == 0
    # The record and the COMMIT marker after it: both below the LSO now.
    assert (data.high_watermark, data.last_stable_offset) == (2, 2)
    assert data.aborted_transactions == []
    batches = rb.decode_batches(data.records or b"")
    assert [(r.offset, r.value) for b in batches if not b.header.is_control for r in b.records] == [(0, b"committed")]
    assert waited < WAKE_LIMIT_S, f"answered {waited:.3f}s after the commit: the marker did not wake the fetch"


async def test_fetch_wakes_on_plain_produce(broker: BrokerProcess) -> None:
    topic = unique("wake-plain")
    await create_topic(broker.bootstrap, topic)
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap)
    await producer.start()
    fetch: ParkedFetch | None = None
    try:
        await producer.send_and_wait(topic, value=b"first", partition=0)
        fetch = await ParkedFetch.send(broker.port, topic, 1, READ_UNCOMMITTED)
        await fetch.assert_parked()
        started = time.monotonic()
        await producer.send_and_wait(topic, value=b"second", partition=0)
        assert fetch.response is not None
        response = await asyncio.wait_for(fetch.response, MAX_WAIT_MS / 1000 + 5)
        waited = time.monotonic() - started
    finally:
        if fetch is not None:
            fetch.close()
        await producer.stop()
    data = response.responses[0].partitions[0]
    assert data.error_code == 0
    assert data.high_watermark == 2
    assert [(r.offset, r.value) for b in rb.decode_batches(data.records or b"") for r in b.records] == [(1, b"second")]
    assert waited < WAKE_LIMIT_S, f"answered {waited:.3f}s after the produce: the append did not wake the fetch"


async def test_fetch_not_woken_by_other_partitions(broker: BrokerProcess) -> None:
    """Appends elsewhere leave a parked fetch parked (it still answers at its max wait)."""
    topic = unique("wake-other")
    other = unique("wake-other")
    await create_topic(broker.bootstrap, topic)
    await create_topic(broker.bootstrap, other)
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap)
    await producer.start()
    fetch: ParkedFetch | None = None
    try:
        fetch = await ParkedFetch.send(broker.port, topic, 0, READ_UNCOMMITTED)
        await fetch.assert_parked()
        for i in range(3):
            await producer.send_and_wait(other, value=b"elsewhere %d" % i, partition=0)
        await fetch.assert_parked()
        await producer.send_and_wait(topic, value=b"here", partition=0)
        assert fetch.response is not None
        response = await asyncio.wait_for(fetch.response, MAX_WAIT_MS / 1000 + 5)
    finally:
        if fetch is not None:
            fetch.close()
        await producer.stop()
    data = response.responses[0].partitions[0]
    assert [(r.offset, r.value) for b in rb.decode_batches(data.records or b"") for r in b.records] == [(0, b"here")]


async def test_read_committed_consumer_gets_commit_before_max_wait(broker: BrokerProcess) -> None:
    topic = unique("wake-consumer")
    await create_topic(broker.bootstrap, topic)
    tp = TopicPartition(topic, 0)
    consumer = AIOKafkaConsumer(
        bootstrap_servers=broker.bootstrap,
        enable_auto_commit=False,
        isolation_level="read_committed",
        fetch_max_wait_ms=MAX_WAIT_MS,
    )
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, transactional_id=f"tx-{topic}")
    await consumer.start()
    await producer.start()
    try:
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        await producer.begin_transaction()
        await producer.send_and_wait(topic, value=b"one", partition=0)
        await producer.send_and_wait(topic, value=b"two", partition=0)
        received = asyncio.ensure_future(consumer.getmany(tp, timeout_ms=3 * MAX_WAIT_MS))
        await asyncio.sleep(PARK_S)
        assert not received.done(), "nothing is committed yet"
        started = time.monotonic()
        await producer.commit_transaction()
        batch = await asyncio.wait_for(received, 4 * MAX_WAIT_MS / 1000)
        waited = time.monotonic() - started
    finally:
        await producer.stop()
        await consumer.stop()
    assert [(r.offset, r.value) for r in batch[tp]] == [(0, b"one"), (1, b"two")]
    assert waited < WAKE_LIMIT_S, f"consumed {waited:.3f}s after the commit: the marker did not wake the fetch"
