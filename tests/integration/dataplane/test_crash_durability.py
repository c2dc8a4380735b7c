"""Every record acknowledged with acks=all survives SIGKILL of the broker, at the offset it
was acknowledged at, exactly once."""

from __future__ import annotations

import asyncio
import random
import time

from protocol import record_batch as rb
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.broker_process import BrokerProcess
from tests.kafka_wire import call_async
from tests.polling import async_wait_until

TOPIC = "durable"
WRITERS = 4
RECORDS_PER_BATCH = 3
KILLS = 5


async def produce_until_stopped(port_of: list[int], writer_id: int, acked: dict[bytes, int], stop: asyncio.Event) -> None:
    sequence = 0
    cid = 0
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port_of[0])
        except OSError:
            await asyncio.sleep(0.02)
            continue
        try:
            while not stop.is_set():
                values = [f"{writer_id}-{sequence + i}".encode() for i in range(RECORDS_PER_BATCH)]
                sequence += RECORDS_PER_BATCH
                now = int(time.time() * 1000)
                batch = rb.build_batch([rb.Record(key=None, value=v, timestamp=now) for v in values])
                cid += 1
                request = ProduceRequest(
                    acks=-1,
                    timeout_ms=10_000,
                    topic_data=[TopicProduceData(name=TOPIC, partition_data=[PartitionProduceData(index=0, records=batch)])],
                )
                response = await call_async(reader, writer, 0, 9, request, cid)
                partition = response.responses[0].partition_responses[0]
                if partition.error_code == 0:
                    for i, v in enumerate(values):
                        acked[v] = partition.base_offset + i
        except (ConnectionError, asyncio.IncompleteReadError, OSError):
            await asyncio.sleep(0.02)
        finally:
            writer.close()


async def read_everything(port: int) -> list[rb.Record]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    records: list[rb.Record] = []
    offset = 0
    cid = 0
    try:
        while True:
            cid += 1
            request = FetchRequest(
                max_wait_ms=0,
                min_bytes=0,
                max_bytes=4_000_000,
                topics=[FetchTopic(topic=TOPIC, partitions=[FetchPartition(partition=0, fetch_offset=offset, partition_max_bytes=4_000_000)])],
            )
            response = await call_async(reader, writer, 1, 11, request, cid)
            data = response.responses[0].partitions[0]
            assert data.error_code == 0
            batches = rb.decode_batches(data.records or b"")
            if not batches:
                return records
            for batch in batches:
                records.extend(batch.records)
            offset = records[-1].offset + 1
    finally:
        writer.close()


async def test_acknowledged_records_survive_sigkill(tmp_path) -> None:  # type: ignore[no-untyped-def]
    broker = BrokerProcess(tmp_path / "data")
    broker.start()
    rng = random.Random(20261121)
    acked: dict[bytes, int] = {}
    stop = asyncio.Event()
    port_of = [broker.port]
    writers = [asyncio.create_task(produce_until_stopped(port_of, w, acked, stop)) for w in range(WRITERS)]
    try:
        for _ in range(KILLS):
            await asyncio.sleep(rng.uniform(0.3, 1.0))
            broker.kill()
            await asyncio.to_thread(broker.start)
        # Writes acknowledged after the last restart, so the check covers them too.
        before = len(acked)
        await async_wait_until(lambda: len(acked) > before, timeout=30, what="a write acknowledged after the restart")
    finally:
        stop.set()
        await asyncio.gather(*writers, return_exceptions=True)
    try:
        records = await read_everything(broker.port)
    finally:
        broker.stop()
    assert len(acked) > 100, "the writers should have made progress between kills"
    offsets = [r.offset for r in records]
    assert offsets == list(range(len(records))), "offsets are dense, with no gap and no duplicate"
    position = {}
    for r in records:
        assert r.value is not None
        assert r.value not in position, f"{r.value!r} appears twice"
        position[r.value] = r.offset
    lost = {v: o for v, o in acked.items() if position.get(v) != o}
    assert not lost, f"{len(lost)} acknowledged records lost or moved, e.g. {list(lost.items())[:5]}"
