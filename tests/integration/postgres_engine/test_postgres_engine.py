"""What only the PostgreSQL engine has: batches stored raw, one row each (a row per piece
of a large one); PostgreSQL lost
while running (a retriable error, reads served, nothing acknowledged lost, recovery by
itself); the clean-shutdown flag; topic deletion in SQL."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import asyncpg
import pytest

from odradek.postgres_server import PostgresServer, running_postgres
from protocol import record_batch as rb
from storage import errors
from storage.clock import ManualClock
from storage.postgres.copy_stream import CHUNK_BYTES
from storage.postgres.engine import PostgresStorage
from storage.postgres.group_commit import Columns, insert
from storage.postgres.pieces import PIECE_BYTES
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.unit.storage.storage_helpers import make_batch


async def open_engine(url: str) -> PostgresStorage:
    return await PostgresStorage.open(url, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    """A server this test may stop and start again."""
    # In a folder of its own, not under pytest's: a pytest starting meanwhile closes its
    # base folder to other users, the server's own included.
    with running_postgres() as server:
        yield server


async def test_one_row_per_batch_with_its_header(postgres_url: str) -> None:
    storage = await open_engine(postgres_url)
    try:
        await storage.create_topic("t", 2)
        sent = [make_batch(3), make_batch(2, producer_id=9, producer_epoch=1, base_sequence=0)]
        for batch in sent:
            await storage.log("t", 1).append(batch, durable=True)
        topic_id = storage.describe_topic("t").topic_id
    finally:
        await storage.close()
    conn = await asyncpg.connect(postgres_url)
    try:
        rows = await conn.fetch(
            "SELECT partition, base_offset, last_offset, producer_id, producer_epoch, base_sequence, last_sequence, "
            "transactional, control, payload FROM batches WHERE topic_id = $1 ORDER BY base_offset", topic_id)
        assert await conn.fetchval("SELECT clean_shutdown FROM engine_state") is True
    finally:
        await conn.close()
    assert [tuple(r)[:9] for r in rows] == [
        (1, 0, 2, -1, -1, -1, -1, False, False),
        (1, 3, 4, 9, 1, 0, 1, False, False),
    ]
    # Raw: the payload is the batch as sent, its offsets (and the CRC over them) assigned.
    for original, row in zip(sent, rows, strict=True):
        assert row["payload"][rb.HEADER_SIZE:] == original[rb.HEADER_SIZE:]
        rb.validate_batch(row["payload"])


async def test_postgres_lost_and_back(own_server: PostgresServer) -> None:
    storage = await open_engine(own_server.url)
    try:
        await storage.create_topic("t", 1)
        log = storage.log("t", 0)
        await log.append(make_batch(2), durable=True)
        own_server.stop("immediate")
        # acks=all: a retriable error (KAFKA_STORAGE_ERROR), the record not visible.
        with pytest.raises(errors.KafkaStorageError) as raised:
            await log.append(make_batch(3), durable=True)
        assert raised.value.error_code == 56
        assert (log.high_watermark, log.log_end_offset) == (2, 5)
        # Reads are served from memory meanwhile.
        read = await log.read(0, 1 << 20)
        assert [r.offset for b in rb.decode_batches(read.records) for r in b.records] == [0, 1]
        own_server.restart()
        # The engine connects again by itself (its retry, or the next write's round).
        result = await log.append(make_batch(1), durable=True)
        assert (result.base_offset, log.high_watermark) == (5, 6)
    finally:
        await storage.close()
    reopened = await open_engine(own_server.url)
    try:
        log = reopened.log("t", 0)
        assert log.log_end_offset == 6
        read = await log.read(0, 1 << 20)
        assert [r.offset for b in rb.decode_batches(read.records) for r in b.records] == list(range(6))
    finally:
        await reopened.close()


def _wait_until_gone(url: str, pid: int) -> None:
    """Blocks (this thread's event loop stands still) until the backend `pid` has exited,
    polled from a loop of another thread."""

    async def gone() -> None:
        conn = await asyncpg.connect(url)
        try:
            deadline = time.monotonic() + 15
            while await conn.fetchval("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid):
                assert time.monotonic() < deadline, f"backend {pid} never exited"
                await asyncio.sleep(0.01)
        finally:
            await conn.close()

    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, gone()).result()


async def test_a_round_on_a_connection_ended_while_idle_connects_again(postgres_url: str) -> None:
    """PostgreSQL ends the rounds' connection while it is idle (a cluster's brokers end the
    sessions of one paused past its session timeout, storage/postgres/cluster/membership.py
    `end_expired`; an administrator; idle_session_timeout). asyncpg reads the backend's
    FATAL message a turn of the event loop before it reads the socket's end, and meanwhile
    holds the connection open but unusable: a round starting between the two failed, its
    writers told KAFKA_STORAGE_ERROR ("cannot switch to state 21; another operation (2) is in
    progress"), though nothing of it had reached PostgreSQL. It connects again instead."""
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    try:
        await storage.create_topic("t", 1)
        log = storage.log("t", 0)
        await log.append(make_batch(2), durable=True)
        rounds = await storage._connector.get()
        assert await sql.fetchval("SELECT pg_terminate_backend($1)", rounds.get_server_pid())
        # The backend has sent its FATAL message and closed its socket; this loop has read
        # neither. The next turn reads the message; the round this append starts runs on
        # the turn after, before the socket's end is read.
        _wait_until_gone(postgres_url, rounds.get_server_pid())
        await asyncio.sleep(0)
        result = await log.append(make_batch(3), durable=True)
        assert (result.base_offset, log.high_watermark) == (2, 5)
        assert not storage.flusher.failing
        assert await sql.fetchval("SELECT count(*) FROM batches") == 2
    finally:
        await sql.close()
        await storage.close()


async def test_a_crash_is_not_a_clean_start_and_keeps_what_was_committed(postgres_url: str) -> None:
    storage = await open_engine(postgres_url)
    await storage.create_topic("t", 1)
    await storage.log("t", 0).append(make_batch(4), durable=True)
    await storage.abort()
    reopened = await open_engine(postgres_url)
    try:
        assert reopened.clean_start is False
        assert reopened.log("t", 0).log_end_offset == reopened.log("t", 0).high_watermark == 4
    finally:
        await reopened.close()
    again = await open_engine(postgres_url)
    try:
        assert again.clean_start is True
    finally:
        await again.close()


async def test_a_deleted_topic_leaves_no_row(postgres_url: str) -> None:
    storage = await open_engine(postgres_url)
    try:
        await storage.create_topic("gone", 3)
        for p in range(3):
            await storage.log("gone", p).append(make_batch(2), durable=True)
        await storage.delete_topic("gone")
        await storage.sync()
    finally:
        await storage.close()
    conn = await asyncpg.connect(postgres_url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM batches") == 0
        assert await conn.fetchval("SELECT count(*) FROM topics") == 0
    finally:
        await conn.close()


async def test_an_offset_taken_by_another_writer_fails_the_append(postgres_url: str) -> None:
    """The primary key is the last guard of the offsets: a second engine on the same
    database (what leader epochs will fence) cannot make the first overwrite its batches."""
    first = await open_engine(postgres_url)
    try:
        await first.create_topic("t", 1)
        await first.log("t", 0).append(make_batch(1), durable=True)
        second = await open_engine(postgres_url)
        try:
            await second.log("t", 0).append(make_batch(2, key_prefix=b"second"), durable=True)
        finally:
            await second.close()
        with pytest.raises(errors.KafkaStorageError):
            await first.log("t", 0).append(make_batch(3, key_prefix=b"first"), durable=True)
        assert first.log("t", 0).high_watermark == 1
    finally:
        await first.abort()
    conn = await asyncpg.connect(postgres_url)
    try:
        rows = await conn.fetch("SELECT base_offset, last_offset FROM batches ORDER BY base_offset")
    finally:
        await conn.close()
    assert [tuple(r) for r in rows] == [(0, 0), (1, 2)]


async def test_a_large_batch_is_stored_in_pieces_that_stay_out_of_toast(postgres_url: str) -> None:
    """A batch larger than a heap page is a row per piece (storage/postgres/pieces.py), each
    kept in its page: nothing goes to the TOAST table. A reload and a rewrite after a failed
    round (`insert(again=True)`) see the batch whole."""
    storage = await open_engine(postgres_url)
    try:
        await storage.create_topic("big", 1)
        big, small = make_batch(40, value_size=1000), make_batch(2)
        for batch in (big, small):
            await storage.log("big", 0).append(batch, durable=True)
        topic_id = storage.describe_topic("big").topic_id
    finally:
        await storage.close()
    conn = await asyncpg.connect(postgres_url)
    try:
        rows = await conn.fetch(
            "SELECT base_offset, piece, last_offset, payload FROM batches WHERE topic_id = $1 "
            "ORDER BY base_offset, piece", topic_id)
        toast_bytes = await conn.fetchval(
            "SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'batches'::regclass")
        stored = b"".join(r["payload"] for r in rows if r["base_offset"] == 0)
        pieces_of_big = -(-len(stored) // PIECE_BYTES)
        assert [(r["base_offset"], r["piece"], r["last_offset"]) for r in rows] == [
            *((0, n, 39) for n in range(pieces_of_big)), (40, 0, 41)
        ]
        assert pieces_of_big > 1 and all(len(r["payload"]) <= PIECE_BYTES for r in rows)
        assert toast_bytes == 0
        assert stored[rb.HEADER_SIZE:] == big[rb.HEADER_SIZE:]
        # The same batch again is skipped; another one at its offsets fails the round.
        again = Columns()
        again.add((topic_id, 0), 0, rb.BatchHeader.parse(stored), stored)
        await insert(conn, again, again=True)
        assert await conn.fetchval("SELECT count(*) FROM batches WHERE topic_id = $1", topic_id) == len(rows)
        altered = bytearray(stored)
        altered[-1] ^= 1
        other = Columns()
        other.add((topic_id, 0), 0, rb.BatchHeader.parse(altered), altered)
        with pytest.raises(errors.KafkaStorageError):
            async with conn.transaction():
                await insert(conn, other, again=True)
    finally:
        await conn.close()
    reopened = await open_engine(postgres_url)
    try:
        read = await reopened.log("big", 0).read(0, 1 << 20)
        assert [r.offset for b in rb.decode_batches(read.records) for r in b.records] == list(range(42))
    finally:
        await reopened.close()


async def test_a_round_of_several_batches_spans_several_copy_chunks(postgres_url: str) -> None:
    """One round, one COPY (storage/postgres/copy_stream.py) of batches of many sizes: pieces
    cut at chunk boundaries and a batch of exactly one piece; each row repeats its batch's
    header columns, and the pieces joined are the batch as appended."""
    storage = await open_engine(postgres_url)
    sizes = [300_000, 10, 400_000, 3_000, 9_000]
    try:
        await storage.create_topic("t", 1)
        log = storage.log("t", 0)
        sent = [
            make_batch(2, value_size=size, producer_id=7, producer_epoch=3, base_sequence=2 * i)
            for i, size in enumerate(sizes)
        ]
        # A batch of exactly PIECE_BYTES: one row.
        def one(value_size: int) -> bytes:
            record = rb.Record(b"k", b"v" * value_size, [], 1_700_000_000_000)
            return rb.build_batch([record], producer_id=7, producer_epoch=3, base_sequence=2 * len(sizes))

        exact = one(PIECE_BYTES - (len(one(7000)) - 7000))
        sent.append(exact)
        for batch in sent:
            log.append_nowait(batch)
        await log.sync()  # one round took them all
        topic_id = storage.describe_topic("t").topic_id
    finally:
        await storage.close()
    assert len(exact) == PIECE_BYTES and sum(map(len, sent)) > 2 * CHUNK_BYTES
    conn = await asyncpg.connect(postgres_url)
    try:
        rows = await conn.fetch(
            "SELECT base_offset, last_offset, segment_base, producer_id, producer_epoch, base_sequence, "
            "last_sequence, piece, payload FROM batches WHERE topic_id = $1 ORDER BY base_offset, piece", topic_id)
    finally:
        await conn.close()
    by_batch: dict[int, list[asyncpg.Record]] = {}
    for row in rows:
        by_batch.setdefault(row["base_offset"], []).append(row)
    assert sorted(by_batch) == [2 * i for i in range(len(sent))]
    for i, batch in enumerate(sent):
        pieces = by_batch[2 * i]
        assert [r["piece"] for r in pieces] == list(range(-(-len(batch) // PIECE_BYTES)))
        last = 2 * i + len(rb.decode_batches(batch)[0].records) - 1
        assert {tuple(r)[:7] for r in pieces} == {(2 * i, last, 0, 7, 3, 2 * i, last)}
        stored = b"".join(r["payload"] for r in pieces)
        assert stored[rb.HEADER_SIZE:] == batch[rb.HEADER_SIZE:]
        rb.validate_batch(stored)
