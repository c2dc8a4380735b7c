"""Group commit into PostgreSQL: the flusher's rounds (storage.flusher) become SQL
transactions. A round takes every batch written since the last round, from every
partition, plus the engine's queued changes (catalog, log starts, deletions), and writes
them in one transaction: the batches by one COPY, then the changes in the
order they were made. The high watermark of a partition moves when the round holding
its batches has committed, so a consumer never reads what PostgreSQL does not hold.

A failed round (PostgreSQL gone) keeps everything it took: the writers waiting for it get
a KafkaStorageError (retriable for a producer), the connection is dropped and the next
round, started by the next write or a retry after `RETRY_SECONDS`, connects again and
writes it all. A round that committed but whose answer was lost is written again
harmlessly: a batch already there is skipped if it is the same batch; any other batch at
an offset already taken fails the round (another writer: see `insert`). A round whose
connection, idle since the round before, turns out ended by PostgreSQL connects again at
once and writes it all that way instead of failing.

In cluster mode a round is fenced (storage/postgres/cluster/leadership.py) for every
partition it writes: those of its batches and those whose log queued one of its changes (a
log start, a cleaned segment swapped in, a roll, a cleaner checkpoint). A change or a batch
of a log dropped since (its partition lost) is never written: only the current leader
changes a log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

import asyncpg

from protocol.record_batch import BatchHeader

from ..errors import KafkaStorageError
from ..files import MemoryStore
from ..flusher import GroupCommitFlusher, RoundDone, Syncable
from ..log import SegmentNotResident
from .chunks import Chunks
from .copy_stream import COLUMNS, copy_chunks
from .pieces import split

logger = logging.getLogger(__name__)

RETRY_SECONDS = 0.5
CONNECT_TIMEOUT_SECONDS = 5.0

# A change made in SQL within a round's transaction, after its batches.
Change = Callable[[asyncpg.Connection], Awaitable[None]]


class Owner(NamedTuple):
    """The log a queued change was made by."""

    key: tuple[Any, int]  # its partition
    epoch: int | None  # the leader epoch it was read back at (None: outside cluster mode)
    dropped: Callable[[], bool]  # whether it was dropped since (closed: its partition lost)


class Queued(NamedTuple):
    """A queued change; `owner` None for a change of no one partition's log: the catalog's,
    or the removal of a deleted topic's partitions (any broker's to make)."""

    change: Change
    owner: Owner | None


# Given the (topic_id, partition) keys a round writes (those of its batches and of its
# changes' logs), as the round takes them: the check its transaction runs before them,
# which raises to fail the round. Made when the batches are taken, so that it checks the leadership they were written under, not the one
# in force once the round gets its connection (storage/postgres/cluster/leadership.py).
Fence = Callable[[set[tuple[Any, int]]], Callable[[asyncpg.Connection], Awaitable[None]]]

_INSERT = """
INSERT INTO batches (topic_id, partition, base_offset, last_offset, segment_base, base_timestamp,
    max_timestamp, producer_id, producer_epoch, base_sequence, last_sequence, transactional, control, payload, piece)
SELECT * FROM unnest($1::uuid[], $2::integer[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[],
    $7::bigint[], $8::bigint[], $9::smallint[], $10::integer[], $11::integer[], $12::boolean[], $13::boolean[],
    $14::bytea[], $15::integer[])
"""
# After a failed round whose COMMIT may have happened all the same (the connection lost
# while committing): batches already there are skipped, if they are these very batches.
_INSERT_AGAIN = _INSERT + "ON CONFLICT DO NOTHING"
_CONFLICTS = """
SELECT count(*) FROM unnest($1::uuid[], $2::integer[], $3::bigint[], $4::bytea[], $5::integer[]) AS u(topic_id,
    partition, base_offset, payload, piece)
JOIN batches b USING (topic_id, partition, base_offset, piece) WHERE b.payload <> u.payload
"""


async def insert(conn: asyncpg.Connection, rows: Columns, *, again: bool = False) -> None:
    """The batches of a round. The primary key is the last guard of the offsets this one
    writer assigns: a batch at an offset already taken fails the round (KAFKA_STORAGE_ERROR
    to its producers), unless it is the same batch written again (`again`).

    COPY in binary, streamed in chunks (storage/postgres/copy_stream.py): the payloads go
    as they are, where the unnest INSERT's bytea[] parameter is built and parsed again
    (about a third less of the broker's CPU per MB); the rewrite after a failure needs ON
    CONFLICT, which COPY lacks."""
    if not again:
        await conn.copy_to_table("batches", source=copy_chunks(rows.rows), columns=COLUMNS, format="binary")
        return
    c = rows.columns()
    await conn.execute(_INSERT_AGAIN, *c)
    if await conn.fetchval(_CONFLICTS, c[0], c[1], c[2], c[13], c[14]):
        raise KafkaStorageError("another writer took offsets of this broker's batches")


# What a connection ended by PostgreSQL (not a statement's failure) raises on its next use.
_CONNECTION_ENDED = (
    OSError,
    asyncpg.InterfaceError,  # ConnectionDoesNotExistError among them
    asyncpg.exceptions.InternalClientError,  # its protocol left unusable by the end's message
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CrashShutdownError,
    asyncpg.exceptions.CannotConnectNowError,
)


async def _write(
    conn: asyncpg.Connection, rows: Columns, changes: list[Queued],
    check: Callable[[asyncpg.Connection], Awaitable[None]] | None, *, again: bool,
    taken: list[tuple[PostgresStore, int]],
) -> None:
    """A round's SQL: its fence, its batches, its changes, in one transaction."""
    if changes or again or check is not None:
        async with conn.transaction():
            if check is not None:
                await check(conn)
                # Cluster mode: the batches of a log dropped since the round took them (its
                # partition lost, and served here again at that epoch after a lost session,
                # so that the check passed) are not written: the log read back hands their
                # offsets out again. Their writers learn it (their high watermark stays).
                # Dropped after this, the log's reload at that epoch waits for this round's
                # end (PostgresStorage.reload_partition), and reads back what it commits.
                rows = _of_live(rows, taken)
            if rows.count:
                await insert(conn, rows, again=again)
            for queued in changes:
                # Its log dropped since the round took it (cluster mode: the check passed
                # as its partition is served again at that epoch, after a lost session).
                if check is not None and queued.owner is not None and queued.owner.dropped():
                    continue
                await queued.change(conn)
    elif rows.count:
        # One statement is a transaction of its own: no BEGIN and COMMIT round trips.
        await insert(conn, rows)


def _still_served(owner: Owner, served: Callable[[tuple[Any, int]], int | None]) -> bool:
    return owner.epoch is not None and served(owner.key) == owner.epoch and not owner.dropped()


def _of_live(rows: Columns, taken: list[tuple[PostgresStore, int]]) -> Columns:
    """`rows` without those of stores no longer live (`taken`: each store and how many
    rows of `rows` it added, in order)."""
    if all(store.live for store, _ in taken):
        return rows
    live = Columns()
    start = 0
    for store, count in taken:
        if store.live:
            live.rows.extend(rows.rows[start:start + count])
        start += count
    return live


class Columns:
    """The batches of one round's insert: a row per batch in `COLUMNS` order up to
    `payload` (the whole batch); the table's row per piece of it (storage/postgres/pieces.py)
    is made only where it is written (`copy_chunks`, `columns`)."""

    __slots__ = ("rows",)

    def __init__(self) -> None:
        self.rows: list[tuple[Any, ...]] = []

    @property
    def count(self) -> int:
        return len(self.rows)

    def columns(self) -> list[list[Any]]:
        """A row per piece, column by column, for unnest (one array per column)."""
        pieces = [
            (*row[:13], piece, number) for row in self.rows for number, piece in enumerate(split(row[13]))
        ]
        return [list(column) for column in zip(*pieces, strict=True)]

    def add(
        self, key: tuple[Any, int], segment_base: int, header: BatchHeader, payload: bytes | bytearray | memoryview
    ) -> None:
        self.rows.append((
            key[0], key[1], header.base_offset, header.last_offset, segment_base, header.base_timestamp,
            header.max_timestamp, header.producer_id, header.producer_epoch, header.base_sequence,
            header.last_sequence, header.is_transactional, header.is_control, payload,
        ))


class PostgresStore(MemoryStore):
    """A segment's bytes in memory (the cache reads are served from), remembering which
    batches no round has committed yet. `on_durable` is told the offset below which the
    segment's batches are committed. The bytes are chunks (storage/postgres/chunks.py),
    not MemoryStore's one bytearray, which stays empty."""

    __slots__ = (
        "_bytes", "_evicted_size", "_pending", "_taken", "base_offset", "grow", "key", "live", "on_durable",
        "resident", "tracking",
    )

    def __init__(self, key: tuple[Any, int], base_offset: int, on_durable: Callable[[int], None]) -> None:
        super().__init__()
        self._bytes = Chunks()
        self.key = key
        self.base_offset = base_offset
        self.on_durable = on_durable
        # (header, the batch as appended): the round sends the appended object itself rather
        # than a copy read back from the segment. Log.append_nowait hands over a buffer of
        # its own (a request's frame or a bytearray copy), never written to again.
        self._pending: list[tuple[BatchHeader, bytes | bytearray | memoryview]] = []
        self._taken = 0  # of `_pending`, the batches the last round took
        self.tracking = False  # off while a load fills the store from PostgreSQL
        self.live = True
        # False once the tail cache dropped the bytes (storage/postgres/tail_cache.py).
        self.resident = True
        self._evicted_size = 0
        # While the active segment of a topic the tail cache bounds: told of every byte
        # appended (and of the whole size, negative, if deleted while active).
        self.grow: Callable[[int], None] | None = None

    @property
    def size(self) -> int:
        return len(self._bytes) if self.resident else self._evicted_size

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    def read(self, position: int, length: int) -> bytes:
        if not self.resident:
            raise SegmentNotResident(self)
        return self._bytes.read(position, length)

    def restore(self, data: bytes) -> None:
        """The bytes again, as read back from PostgreSQL (exactly those dropped)."""
        assert not self.resident and len(data) == self._evicted_size
        self._bytes.clear()
        self._bytes.append(data)
        self.resident = True

    def evict(self) -> None:
        """Drop the bytes (all committed: PostgreSQL has them); the size stays known."""
        assert not self._pending, "a segment with uncommitted batches stays in memory"
        self._evicted_size = len(self._bytes)
        self._bytes.clear()
        self.resident = False

    def append(self, data: bytes | bytearray | memoryview) -> None:
        self._bytes.append(data)
        if self.tracking:
            self._pending.append((BatchHeader.parse(data), data))
        if self.grow is not None:
            self.grow(len(data))

    def take(self, rows: Columns) -> int:
        """Adds the uncommitted batches to `rows`; returns how many (for `committed`)."""
        for header, data in self._pending:
            rows.add(self.key, self.base_offset, header, data)
        self._taken = len(self._pending)
        return self._taken

    def committed(self, count: int) -> None:
        if not self.live or count == 0:
            return
        end = self._pending[count - 1][0].next_offset
        del self._pending[:count]
        self._taken = max(0, self._taken - count)
        self.on_durable(end)

    def truncate(self, size: int) -> None:
        raise NotImplementedError("a PostgreSQL log is never truncated")

    def abandon(self) -> int:
        """Its partition is no longer led here (cluster mode): what no round took is never
        written, nor does a round in flight move the high watermark. Returns how many
        batches no round took (the last round's writers learn its outcome from it)."""
        self.live = False
        if self.grow is not None:  # no longer an active segment the tail cache counts
            self.grow(-self.size)
            self.grow = None
        untaken = max(0, len(self._pending) - self._taken)
        self._pending.clear()
        return untaken

    def delete(self) -> None:
        if self.grow is not None:
            self.grow(-self.size)
            self.grow = None
        self._bytes.clear()
        self.live = False
        self._pending.clear()


class ChangeQueue:
    """The engine's queued SQL changes; a flusher target, so a change starts a round."""

    def __init__(self) -> None:
        self.changes: list[Queued] = []

    def sync(self) -> None:
        pass


class Connector:
    """The engine's one connection, made again after a failure."""

    def __init__(self, connect: Callable[[], Awaitable[asyncpg.Connection]]) -> None:
        self._connect = connect
        self._conn: asyncpg.Connection | None = None

    @property
    def connected(self) -> bool:
        """Whether `get` would hand out the connection of an earlier use."""
        return self._conn is not None and not self._conn.is_closed()

    async def get(self) -> asyncpg.Connection:
        if self._conn is None or self._conn.is_closed():
            self._conn = await asyncio.wait_for(self._connect(), CONNECT_TIMEOUT_SECONDS)
        return self._conn

    def drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            conn.terminate()

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), CONNECT_TIMEOUT_SECONDS)


class PostgresFlusher(GroupCommitFlusher):
    """Rounds that are SQL transactions (see the module docstring)."""

    def __init__(self, connector: Connector, changes: ChangeQueue) -> None:
        super().__init__()
        self._connector = connector
        self._changes = changes
        self._retry: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.failing = False  # since a round failed, until one commits
        self.commit_seconds: deque[float] = deque(maxlen=10_000)  # the last rounds' transaction times
        # Cluster mode: checks in the round's transaction, before its batches, that this
        # broker still leads their partitions at the epochs they were written under
        # (storage/postgres/cluster/leadership.py).
        self.fence: Fence | None = None
        # Cluster mode: the leader epoch a partition is served at here (None: not served).
        # A queued change of a partition's log commits only while that log's epoch is
        # served, and its round is fenced like a batch (`_submit`).
        self.served: Callable[[tuple[Any, int]], int | None] | None = None
        # Fails the next round: batches whose writers wait for it were dropped (`abandon`).
        self._fail_next: Exception | None = None
        # Called after each committed round (the tail cache drops what became committed).
        self.on_committed: Callable[[], None] = lambda: None

    def queue_change(self, change: Change, owner: Owner | None = None) -> None:
        """A change made in the log or the catalog, committed by the next round, started
        now if none is running: nobody may wait for it (a log start moved by retention).
        `owner`: the log that made it."""
        self._changes.changes.append(Queued(change, owner))
        self.mark_dirty(self._changes)
        self.request_round()

    def fail_next_round(self, exc: Exception) -> None:
        """The next round answers `exc` to its waiters (and commits nothing): some of them
        wrote batches that were dropped before any round took them."""
        self._fail_next = exc
        self.request_round()

    def _submit(self, targets: list[Syncable], done: RoundDone) -> None:
        if self._fail_next is not None:
            exc, self._fail_next = self._fail_next, None
            done(exc, 0.0)  # its targets are dirty again (GroupCommitFlusher._finish_round)
            self._schedule_retry()
            return
        rows = Columns()
        taken = [(t, t.take(rows)) for t in targets if isinstance(t, PostgresStore)]
        changes: list[Queued] = []
        if any(t is self._changes for t in targets):
            changes, self._changes.changes = self._changes.changes, []
            if self.served is not None:
                changes = self._drop_stale(changes, self.served)
        others = [t for t in targets if not isinstance(t, PostgresStore | ChangeQueue)]
        # Kafka's rule: only the current leader changes a partition's log. A log start
        # moved, a cleaned segment swapped in, a segment rolled are fenced like batches: a
        # broker that lost the partition must not delete, rewrite or resurrect rows under
        # its successor (who serves the log as it read it back).
        keys = {(row[0], row[1]) for row in rows.rows}
        keys.update(queued.owner.key for queued in changes if queued.owner is not None)
        check = self.fence(keys) if self.fence is not None and keys else None
        task = asyncio.get_running_loop().create_task(self._commit(rows, changes, taken, others, check, done))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    def _drop_stale(changes: list[Queued], served: Callable[[tuple[Any, int]], int | None]) -> list[Queued]:
        """The changes whose log is still the one served: those of a log dropped since (its
        partition lost, perhaps led here again and read back, at a newer epoch or at the
        same one after a lost session) never commit, nor fail the rounds after: their log is
        gone, the one read back lacks them."""
        kept = [q for q in changes if q.owner is None or _still_served(q.owner, served)]
        if len(kept) < len(changes):
            logger.info("dropped %d queued change(s) of partitions no longer led here", len(changes) - len(kept))
        return kept

    async def _commit(
        self, rows: Columns, changes: list[Queued], taken: list[tuple[PostgresStore, int]], others: list[Syncable],
        check: Callable[[asyncpg.Connection], Awaitable[None]] | None, done: RoundDone,
    ) -> None:
        started = time.perf_counter()
        try:
            for other in others:  # any other target a round must make durable (tests hold rounds so)
                await asyncio.to_thread(other.sync)
            reused = self._connector.connected
            conn = await self._connector.get()
            try:
                await _write(conn, rows, changes, check, again=self.failing, taken=taken)
            except _CONNECTION_ENDED as exc:
                if not reused:
                    raise
                # The connection, idle since the last round, was ended meanwhile (a paused
                # broker's sessions ended by the others, storage/postgres/cluster/membership.py
                # `end_expired`; an administrator; a restart): none of this round can have
                # committed but through a COMMIT whose answer was lost, which `again` covers.
                # Once more at once on a new connection, as the next round would, rather than
                # failing its writers. asyncpg may learn of the end only by refusing the round's
                # first statement ("cannot switch to state ...; another operation (2) is in
                # progress": it read the backend's FATAL message while idle, and not yet the
                # socket's end), never by `is_closed()` beforehand.
                logger.warning("PostgreSQL connection found ended (%s): the round connects again", exc)
                self._connector.drop()
                conn = await self._connector.get()
                await _write(conn, rows, changes, check, again=True, taken=taken)
        except (Exception, asyncio.CancelledError) as exc:
            self._connector.drop()
            # Kept for the next round, before anything queued since.
            self._changes.changes[:0] = changes
            if not self.failing:  # once per outage: every write fails until it ends
                logger.warning("PostgreSQL round failed: %s", exc)
            self.failing = True
            self._schedule_retry()
            done(exc if isinstance(exc, Exception) else RuntimeError("round cancelled"), time.perf_counter() - started)
            return
        elapsed = time.perf_counter() - started
        if self.failing:
            logger.warning("PostgreSQL rounds commit again")
            self.failing = False
        self.commit_seconds.append(elapsed)
        # The high watermarks move before the round's waiters resume.
        for store, count in taken:
            store.committed(count)
        self.on_committed()
        done(None, elapsed)

    def _schedule_retry(self) -> None:
        if self._retry is not None:
            return
        self._retry = asyncio.get_running_loop().call_later(RETRY_SECONDS, self._retry_due)

    def _retry_due(self) -> None:
        self._retry = None
        if self._dirty:
            self.request_round()

    async def close_abruptly(self) -> None:
        """Stop at once, committing nothing more (a crash, for tests)."""
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        self._dirty.clear()

    async def close(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if self._dirty:
            with contextlib.suppress(Exception):
                await self.sync()
        for task in list(self._tasks):  # a round a retry started meanwhile
            with contextlib.suppress(Exception):
                await task
        await super().close()
        # A round that failed above scheduled a retry: it must not start a round once closed,
        # beside the engine's last statement on the same connection (PostgresStorage.close).
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
