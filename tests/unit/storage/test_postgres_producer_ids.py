"""Producer id blocks from the PostgreSQL sequence: brokers sharing a database never hand
out one id twice (storage/postgres/producer_ids.py)."""

from __future__ import annotations

import asyncio

from coordinator.producer_ids import ProducerIdManager
from protocol import record_batch as rb
from storage.postgres.engine import PostgresStorage
from storage.postgres.producer_ids import BLOCK_SIZE
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS


async def _open(url: str) -> PostgresStorage:
    return await PostgresStorage.open(url, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)


async def test_two_engines_on_one_database_get_disjoint_blocks(postgres_url: str) -> None:
    first, second = await _open(postgres_url), await _open(postgres_url)
    try:
        a = ProducerIdManager(None, blocks=first.producer_id_blocks())
        b = ProducerIdManager(None, blocks=second.producer_id_blocks())
        # Interleaved, and racing for the sequence's creation at the first block.
        got_a: list[int] = []
        got_b: list[int] = []
        for _ in range(BLOCK_SIZE * 2 + 10):
            pa, pb = await asyncio.gather(a.generate(), b.generate())
            got_a.append(pa)
            got_b.append(pb)
        assert len(set(got_a)) == len(got_a) and len(set(got_b)) == len(got_b)
        assert not set(got_a) & set(got_b)
        # Whole blocks: each engine's ids run in blocks of BLOCK_SIZE from a block start.
        assert {pid // BLOCK_SIZE for pid in got_a}.isdisjoint({pid // BLOCK_SIZE for pid in got_b})
    finally:
        await first.close()
        await second.close()
    # A restarted broker takes a fresh block: the rest of its old one is skipped.
    restarted = await _open(postgres_url)
    try:
        pid = await ProducerIdManager(None, blocks=restarted.producer_id_blocks()).generate()
        assert pid not in got_a and pid not in got_b and pid % BLOCK_SIZE == 0
        assert pid > max(got_a + got_b)
    finally:
        await restarted.close()


async def test_the_sequence_starts_above_ids_already_used(postgres_url: str) -> None:
    """A database written before the sequence existed (ids from a broker's block file):
    the first block starts above every producer id in the log and above the floor given."""
    storage = await _open(postgres_url)
    try:
        await storage.create_topic("t", 1)
        batch = rb.build_batch([rb.Record(b"k", b"v", timestamp=0)], producer_id=4321, producer_epoch=0,
                               base_sequence=0)
        await storage.log("t", 0).append(batch, durable=True)
        ids = ProducerIdManager(None, blocks=storage.producer_id_blocks(floor=17))
        assert await ids.generate() == 4322
    finally:
        await storage.close()
    storage = await _open(postgres_url)
    try:
        ids = ProducerIdManager(None, blocks=storage.producer_id_blocks(floor=10**9))
        # The sequence exists: the floor counts only when it is created.
        assert await ids.generate() == 4322 + BLOCK_SIZE
    finally:
        await storage.close()
