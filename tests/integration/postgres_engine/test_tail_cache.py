"""The PostgreSQL engine's tail cache (storage/postgres/tail_cache.py): segments older than
`storage.postgres.tail.cache.bytes` drop their bytes once committed and are read back from
PostgreSQL; every record stays readable, by offset and by timestamp, before and after a
restart; a consumer of a broker process reads a partition larger than the cache from 0."""

from __future__ import annotations

import asyncio
from pathlib import Path

from aiokafka import AIOKafkaProducer

from protocol import record_batch as rb
from storage.clock import ManualClock
from storage.engine import EARLIEST_TIMESTAMP, MAX_TIMESTAMP
from storage.postgres.engine import PostgresStorage
from storage.postgres.group_commit import PostgresStore
from storage.postgres.tail_cache import MIN_SEGMENT_BYTES
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.broker_process import BrokerProcess
from tests.integration.postgres_engine.test_broker_on_postgres import create_topic, read_values
from tests.names import unique
from tests.unit.storage.storage_helpers import make_batch

CACHE_BYTES = 2 * MIN_SEGMENT_BYTES  # segments of 1 MiB, two of them kept
RECORDS_PER_BATCH = 50
BATCHES = 120  # about 6 MiB: most of it out of the cache
VALUE_SIZE = 1000
BASE_TS = 1_700_000_000_000


async def open_engine(url: str) -> PostgresStorage:
    return await PostgresStorage.open(
        url, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS, tail_cache_bytes=CACHE_BYTES
    )


async def read_all(storage: PostgresStorage, topic: str) -> list[int]:
    log = storage.log(topic, 0)
    offsets: list[int] = []
    position = log.log_start_offset
    while position < log.high_watermark:
        read = await log.read(position, 300_000)
        batches = rb.decode_batches(read.records)
        assert batches, f"nothing read at {position}"
        offsets += [r.offset for b in batches for r in b.records]
        position = batches[-1].header.last_offset + 1
    return offsets


def resident(storage: PostgresStorage, topic: str) -> list[bool]:
    # A segment the cleaner wrote is plain memory (storage/postgres/engine.py).
    stores = [s.store for s in storage.log(topic, 0).segments]
    return [s.resident if isinstance(s, PostgresStore) else True for s in stores]


async def test_old_segments_leave_memory_and_are_read_back(postgres_url: str) -> None:
    storage = await open_engine(postgres_url)
    try:
        await storage.create_topic("t", 1)
        log = storage.log("t", 0)
        for i in range(BATCHES):
            ts = BASE_TS + i * RECORDS_PER_BATCH
            await log.append(make_batch(RECORDS_PER_BATCH, ts=ts, value_size=VALUE_SIZE), durable=True)
        total = BATCHES * RECORDS_PER_BATCH
        flags = resident(storage, "t")
        # Only the newest segments (within the cache) and the active one keep their bytes.
        assert flags[-1] is True and flags.count(False) >= len(flags) - 4 and False in flags
        assert storage.tail_cache.resident_bytes <= CACHE_BYTES
        assert await read_all(storage, "t") == list(range(total))
        # A Fetch in a dropped segment: whole batches from the one holding the offset.
        read = await log.read(RECORDS_PER_BATCH + 7, 1)
        (batch,) = rb.decode_batches(read.records)
        assert (batch.header.base_offset, batch.header.last_offset) == (RECORDS_PER_BATCH, 2 * RECORDS_PER_BATCH - 1)
        # ListOffsets by timestamp and the max timestamp, in dropped segments and the tail.
        found = await log.list_offset(BASE_TS + 3 * RECORDS_PER_BATCH + 5)
        assert found is not None and (found.offset, found.timestamp) == (
            3 * RECORDS_PER_BATCH + 5, BASE_TS + 3 * RECORDS_PER_BATCH + 5
        )
        latest = await log.list_offset(MAX_TIMESTAMP)
        assert latest is not None and latest.offset == total - 1
        earliest = await log.list_offset(EARLIEST_TIMESTAMP)
        assert earliest is not None and earliest.offset == 0
        # DeleteRecords into a dropped segment: reads start there.
        await log.delete_records_before(2 * RECORDS_PER_BATCH)
        await storage.sync()
        assert (await read_all(storage, "t"))[0] == 2 * RECORDS_PER_BATCH
    finally:
        await storage.close()
    storage = await open_engine(postgres_url)
    try:
        # Loaded again: the old segments leave memory again, every record still there.
        assert False in resident(storage, "t")
        assert await read_all(storage, "t") == list(range(2 * RECORDS_PER_BATCH, BATCHES * RECORDS_PER_BATCH))
    finally:
        await storage.close()


async def test_a_consumer_from_offset_0_gets_every_record_of_a_partition_larger_than_the_cache(
    tmp_path: Path, postgres_url: str
) -> None:
    proc = BrokerProcess(
        tmp_path / "data",
        {"storage.engine": postgres_url, "num.partitions": "1", "storage.postgres.tail.cache.bytes": str(CACHE_BYTES)},
    )
    proc.start()
    try:
        topic = unique("cold")
        await create_topic(proc.bootstrap, topic)
        producer = AIOKafkaProducer(bootstrap_servers=proc.bootstrap, acks="all", linger_ms=5)
        await producer.start()
        count = 6_000  # 6 MB of values: three times the cache
        try:
            for start in range(0, count, 500):
                sent = [await producer.send(topic, value(i), partition=0) for i in range(start, start + 500)]
                await asyncio.gather(*sent)
        finally:
            await producer.stop()
        values = await read_values(proc.bootstrap, topic, count)
        assert values == [value(i) for i in range(count)]
    finally:
        proc.close()


def value(i: int) -> bytes:
    return f"{i:08d}".encode() + b"x" * 992


async def test_a_topic_made_compacted_gets_its_segments_back_for_the_cleaner(postgres_url: str) -> None:
    storage = await open_engine(postgres_url)
    try:
        await storage.create_topic("c", 1)
        log = storage.log("c", 0)
        for i in range(BATCHES):
            await log.append(make_batch(RECORDS_PER_BATCH, ts=BASE_TS + i, value_size=VALUE_SIZE), durable=True)
        assert False in resident(storage, "c")
        await storage.alter_topic_configs("c", {"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.01"})
        await storage.compact()
        # Back in memory for the cleaner (the same keys in every batch: it kept the last).
        assert all(resident(storage, "c"))
        offsets = await read_all(storage, "c")
        assert offsets[-RECORDS_PER_BATCH:] == list(range((BATCHES - 1) * RECORDS_PER_BATCH, BATCHES * RECORDS_PER_BATCH))
        # No longer dropped from memory as segments roll.
        for i in range(BATCHES // 2):
            await log.append(make_batch(RECORDS_PER_BATCH, ts=BASE_TS + i, value_size=VALUE_SIZE), durable=True)
        assert all(resident(storage, "c"))
    finally:
        await storage.close()


async def test_many_partitions_with_partly_filled_segments_stay_within_the_cache(postgres_url: str) -> None:
    storage = await open_engine(postgres_url)
    partitions, batches = 8, 8  # 8 x 8 x ~50 KB: about 3.2 MB in active segments of 1 MiB
    try:
        await storage.create_topic("m", partitions)
        for _ in range(batches):
            for p in range(partitions):
                await storage.log("m", p).append(make_batch(RECORDS_PER_BATCH, value_size=VALUE_SIZE), durable=True)
        cache = storage.tail_cache
        assert cache.resident_bytes + cache.active_bytes <= CACHE_BYTES
        assert cache.evicted > 0
        for p in range(partitions):
            log = storage.log("m", p)
            got = []
            position = 0
            while position < log.high_watermark:
                batches_read = rb.decode_batches((await log.read(position, 1 << 20)).records)
                got += [r.offset for b in batches_read for r in b.records]
                position = batches_read[-1].header.last_offset + 1
            assert got == list(range(batches * RECORDS_PER_BATCH)), p
    finally:
        await storage.close()
