"""The PostgreSQL engine's tail cache: which segments keep their bytes in memory.

Every partition's active segment stays in memory (appends go there and a round sends its
new batches from it). The inactive ones stay too while the newest of them, over all
partitions, fit in `storage.postgres.tail.cache.bytes`; older ones drop their bytes once
every batch in them is committed (storage.postgres.group_commit.PostgresStore.evict) and
keep their indexes, so retention, the aborted-transaction index and the offsets of a
Fetch still come from memory. A Fetch of an offset in such a segment reads the batches
back from PostgreSQL (`PostgresColdReads`): a query that returns at most the Fetch's
bytes, so the event loop waits on a socket, not on a copy of the segment. Segments of
compacted topics (the internal ones included) are never dropped: the log cleaner reads
them whole.

The engine's segments roll at `SEGMENT_SHARE` of the cache at most (instead of
`segment.bytes`, a gigabyte by default): the cache drops whole segments. Active segments
count too: when only they are left over the limit (many partitions, each with a partly
filled last segment), the largest ones are rolled (at least `MIN_ROLL_BYTES` each) and
then dropped like any other.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import asyncpg

from ..errors import KafkaStorageError
from ..segment import LogSegment
from .group_commit import PostgresStore
from .pieces import batch_size, join

DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
# A segment is at most this share of the cache, so that dropping one frees a small part.
SEGMENT_SHARE = 8
MIN_SEGMENT_BYTES = 1024 * 1024
# An active segment smaller than this is not rolled to make room (no crowd of tiny segments).
MIN_ROLL_BYTES = 64 * 1024
# Rows whose sizes one cold read looks at before fetching the payloads that fit.
COLD_READ_ROWS = 1000

# A batch's size from its length field, read from its piece 0 alone (a slice: a payload
# TOASTed before migration 0004 is not read whole).
_SIZES = """
SELECT base_offset, substring(payload FROM 9 FOR 4) AS length FROM batches
WHERE topic_id = $1 AND partition = $2 AND last_offset >= $3 AND base_offset < $4 AND piece = 0
ORDER BY base_offset LIMIT $5
"""
_PAYLOADS = """
SELECT payload FROM batches
WHERE topic_id = $1 AND partition = $2 AND base_offset >= $3 AND base_offset <= $4
ORDER BY base_offset, piece
"""
_BY_TIMESTAMP = """
SELECT b.base_offset, b.piece, b.payload FROM batches b JOIN (
    SELECT base_offset FROM batches
    WHERE topic_id = $1 AND partition = $2 AND last_offset >= $3 AND max_timestamp >= $5 AND piece = 0
    ORDER BY base_offset LIMIT $4
) AS found USING (base_offset)
WHERE b.topic_id = $1 AND b.partition = $2
ORDER BY b.base_offset, b.piece
"""


def segment_bytes_for(cache_bytes: int) -> int:
    """The size the engine's segments roll at, at most."""
    return max(MIN_SEGMENT_BYTES, cache_bytes // SEGMENT_SHARE)


class TailCache:
    """The inactive segments still in memory, oldest first, and their bytes."""

    def __init__(self, limit_bytes: int) -> None:
        self.limit_bytes = limit_bytes
        # id(store) -> (store, its size when added: an inactive segment no longer grows,
        # whether it may leave memory: not once its topic became compacted)
        self._stores: OrderedDict[int, tuple[PostgresStore, int, Callable[[], bool]]] = OrderedDict()
        self.resident_bytes = 0  # of the inactive segments above
        self.active_bytes = 0  # of the active segments of topics not compacted
        self.evicted = 0  # segments dropped so far (for tests and metrics)
        # Rolls active segments holding at least this many bytes, the largest first, until
        # about that many are freed (set by the engine, which has the logs).
        self.roll_active: Callable[[int], None] = lambda excess: None
        self._evicting = False

    def _grow(self, size: int) -> None:
        self.active_bytes += size

    def activate(self, store: PostgresStore) -> None:
        """The active segment of a partition whose segments may leave memory."""
        if store.grow is None:
            store.grow = self._grow
            self.active_bytes += store.size

    def retire(self, store: PostgresStore) -> None:
        """A segment no longer active (rolled)."""
        if store.grow is not None:
            store.grow = None
            self.active_bytes -= store.size

    def add(self, store: PostgresStore, may_evict: Callable[[], bool]) -> None:
        """A segment no longer active (rolled, or loaded at start), newest last."""
        self.retire(store)
        if id(store) in self._stores or not store.resident or not store.live:
            return
        self._stores[id(store)] = (store, store.size, may_evict)
        self.resident_bytes += store.size
        self.evict()

    def evict(self) -> None:
        """Keep the segments in memory within the limit: drop the oldest inactive ones'
        bytes; when none is left to drop, roll the largest active segments (a partition
        written long ago keeps its last segment active) so that they can go too."""
        if self._evicting:
            return
        self._evicting = True
        try:
            if self._drop_oldest() and self.resident_bytes + self.active_bytes > self.limit_bytes:
                self.roll_active(self.resident_bytes + self.active_bytes - self.limit_bytes)
                self._drop_oldest()
        finally:
            self._evicting = False

    def _drop_oldest(self) -> bool:
        """Drops inactive segments' bytes, oldest first, while over the limit; False when
        a segment with batches no round has committed yet stops it (the next commit calls
        again). Segments deleted meanwhile (retention, topic deletion) just leave, and so
        do those of a topic now compacted, which stay in memory."""
        while self.resident_bytes + self.active_bytes > self.limit_bytes and self._stores:
            key, (store, size, may_evict) = next(iter(self._stores.items()))
            if store.live and store.has_pending:
                return False
            del self._stores[key]
            self.resident_bytes -= size
            if store.live and may_evict():
                store.evict()
                self.evicted += 1
        return True


class PostgresColdReads:
    """Storage.log.ColdReads for one partition: its batches read back from PostgreSQL."""

    def __init__(
        self, key: tuple[uuid.UUID, int], acquire: Callable[[], AbstractAsyncContextManager[Any]]
    ) -> None:
        self._key = key
        self._acquire = acquire  # a connection of the engine's reader pool

    def resident(self, segment: LogSegment) -> bool:
        store = segment.store
        return not isinstance(store, PostgresStore) or store.resident

    async def read(self, fetch_offset: int, max_bytes: int, upper_bound: int, min_one_batch: bool) -> bytes:
        topic_id, partition = self._key
        try:
            async with self._acquire() as conn:
                sizes = await conn.fetch(_SIZES, topic_id, partition, fetch_offset, upper_bound, COLD_READ_ROWS)
                total, last = 0, None
                for row in sizes:
                    size = batch_size(row["length"])
                    if total + size > max_bytes and not (last is None and min_one_batch):
                        break
                    total += size
                    last = row["base_offset"]
                if last is None:
                    return b""
                rows = await conn.fetch(_PAYLOADS, topic_id, partition, sizes[0]["base_offset"], last)
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise KafkaStorageError(f"reading back from PostgreSQL failed: {exc}") from exc
        return b"".join(row["payload"] for row in rows)

    async def batches(self, from_offset: int, limit: int, min_max_timestamp: int) -> list[bytes]:
        topic_id, partition = self._key
        try:
            async with self._acquire() as conn:
                rows = await conn.fetch(_BY_TIMESTAMP, topic_id, partition, from_offset, limit, min_max_timestamp)
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise KafkaStorageError(f"reading back from PostgreSQL failed: {exc}") from exc
        return [payload for _, payload in join(rows)]
