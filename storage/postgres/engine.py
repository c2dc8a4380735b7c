"""PostgresStorage: the catalog, the checkpoints and every record batch in PostgreSQL.

The log logic is the other engines' (storage.log over in-memory segments, as
storage.memory): validation, offsets assigned by this one writer, producer state, the
aborted-transaction index, LSO and high watermark. What differs is durability: a write is
durable once the group-committed SQL transaction holding it has committed
(storage.postgres.group_commit), and the catalog, log starts, cleaned segments and
deletions are SQL changes queued into the same rounds, in the order they were made.

At start everything is read back: the topics, then each partition's batches in offset
order into segments cut where they were (`segment_base`), from which the log rebuilds its
producer state and aborted-transaction index as it does from a segment file. The segments
stay in memory as the cache every read is served from (a Fetch never queries
PostgreSQL), so the engine holds its whole log in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Mapping
from typing import Any
from urllib.parse import urlsplit

import asyncpg

from protocol.record_batch import BatchHeader

from ..catalog import TopicRecord
from ..clock import Clock
from ..engine import TopicInfo
from ..errors import KafkaStorageError
from ..log import Log
from ..log_manager import LogManager
from ..producer_state import MemorySnapshotStore, ProducerStateManager
from ..random_source import RandomSource
from ..segment import LogSegment
from ..topic_config import TopicConfig
from . import pieces
from .cluster.leadership import FencedError, Leadership
from .cluster.notify import CLUSTER_CHANNEL
from .group_commit import (
    CONNECT_TIMEOUT_SECONDS,
    Change,
    ChangeQueue,
    Columns,
    Connector,
    Owner,
    PostgresFlusher,
    PostgresStore,
    insert,
)
from .producer_ids import PostgresProducerIdBlocks
from .schema import migrate
from .tail_cache import DEFAULT_CACHE_BYTES, MIN_ROLL_BYTES, PostgresColdReads, TailCache, segment_bytes_for

logger = logging.getLogger(__name__)

PartitionKey = tuple[uuid.UUID, int]
# Connections reading segments out of the tail cache back (Fetches of old data at once).
READER_CONNECTIONS = 4


def address_of(url: str) -> str:
    """host:port/database of a PostgreSQL URL, without user or password (for messages)."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    try:
        port = parts.port or 5432
    except ValueError:
        port = 5432
    return f"{host}:{port}{parts.path or ''}"


class PostgresUnreachableError(KafkaStorageError):
    """PostgreSQL could not be reached (or refused us) at start."""


class _Loaded:
    """One partition as read at start."""

    __slots__ = ("active_segment_base", "batches", "cleaner_checkpoint", "epoch", "log_start")

    def __init__(self) -> None:
        self.epoch: int | None = None  # the leader epoch a reload reads it back at
        self.log_start = 0
        self.cleaner_checkpoint = 0
        self.active_segment_base = 0
        self.batches: list[tuple[int, bytes]] = []  # (segment_base, payload) in offset order


class _PostgresPersistence:
    def __init__(self, storage: PostgresStorage, key: PartitionKey, epoch: int | None) -> None:
        self._storage = storage
        self._key = key
        # The leader epoch the log was read back at (cluster mode): its changes commit only
        # while that epoch is served here, fenced as its batches (group_commit `_submit`).
        self._owner = Owner(key, epoch, self._dropped)
        self.log: Log | None = None

    def _dropped(self) -> bool:
        return self.log is not None and self.log.closed

    def _queue(self, change: Change) -> None:
        self._storage.flusher.queue_change(change, self._owner)

    def _durable(self, offset: int) -> None:
        log = self.log
        if log is not None and not log.closed:
            log._advance_high_watermark(offset)

    def may_evict(self) -> bool:
        """The log cleaner reads a compacted topic's segments whole: they stay in memory."""
        log = self.log
        return log is not None and not log.config.compact

    def store(self, base_offset: int) -> PostgresStore:
        return PostgresStore(self._key, base_offset, self._durable)

    def new_segment(self, base_offset: int, config: TopicConfig) -> LogSegment:
        segment = LogSegment.in_memory(
            base_offset,
            index_interval_bytes=config.index_interval_bytes,
            index_max_bytes=config.segment_index_bytes,
            now_ms=self._storage.clock.now_ms(),
        )
        store = self.store(base_offset)
        store.tracking = True
        segment.store = store
        return segment

    def segment_created(self, segment: LogSegment) -> None:
        log = self.log
        cache = self._storage.tail_cache
        if log is not None and len(log.segments) > 1:
            previous = log.segments[-2].store
            if isinstance(previous, PostgresStore):
                cache.retire(previous)
                if not log.config.compact:
                    cache.add(previous, self.may_evict)
        if log is not None and not log.config.compact and isinstance(segment.store, PostgresStore):
            cache.activate(segment.store)
        self._save_active_segment(segment)

    def _save_active_segment(self, segment: LogSegment) -> None:
        # Kept so a reload has the same segments: the one rolled out of is no longer the
        # active one, which the cleaner never touches.
        topic_id, partition = self._key
        base = segment.base_offset

        async def change(conn: asyncpg.Connection) -> None:
            await conn.execute(
                "INSERT INTO partitions (topic_id, partition, active_segment_base) VALUES ($1, $2, $3) "
                "ON CONFLICT (topic_id, partition) DO UPDATE SET active_segment_base = excluded.active_segment_base",
                topic_id, partition, base,
            )

        self._queue(change)

    def save_log_start_offset(self, offset: int) -> None:
        topic_id, partition = self._key

        async def change(conn: asyncpg.Connection) -> None:
            await conn.execute(
                "INSERT INTO partitions (topic_id, partition, log_start_offset) VALUES ($1, $2, $3) "
                "ON CONFLICT (topic_id, partition) DO UPDATE SET log_start_offset = excluded.log_start_offset",
                topic_id, partition, offset,
            )
            await conn.execute(
                "DELETE FROM batches WHERE topic_id = $1 AND partition = $2 AND last_offset < $3",
                topic_id, partition, offset,
            )

        self._queue(change)

    async def log_start_saved(self) -> None:
        # The round holding the change, or a later one: it commits, or fails (its fence, in
        # a cluster), or drops the change as the log was dropped (the partition lost).
        await self._storage.flusher.sync()
        log = self.log
        if log is not None and log.closed:
            raise KafkaStorageError(f"log start of {log.topic}-{log.partition} not written: the log was dropped")

    def new_cleaned_segment(self, base_offset: int, config: TopicConfig) -> LogSegment:
        # Plain memory: its batches reach PostgreSQL with the swap, not batch by batch.
        return LogSegment.in_memory(
            base_offset,
            index_interval_bytes=config.index_interval_bytes,
            index_max_bytes=config.segment_index_bytes,
            now_ms=self._storage.clock.now_ms(),
        )

    def swap_segments(self, old: list[LogSegment], new: LogSegment) -> None:
        topic_id, partition = self._key
        start, end = old[0].base_offset, old[-1].next_offset
        rows = Columns()
        for position, header in new.iter_headers():
            rows.add(self._key, new.base_offset, header, new.store.read(position, header.size))

        async def change(conn: asyncpg.Connection) -> None:
            # One transaction: a reload finds the old batches or the cleaned ones.
            await conn.execute(
                "DELETE FROM batches WHERE topic_id = $1 AND partition = $2 AND base_offset >= $3 AND base_offset < $4",
                topic_id, partition, start, end,
            )
            if rows.count:
                await insert(conn, rows)

        self._queue(change)
        for segment in old:
            segment.delete()

    def discard_cleaned_segment(self, segment: LogSegment) -> None:
        pass

    def save_cleaner_checkpoint(self, offset: int) -> None:
        topic_id, partition = self._key

        async def change(conn: asyncpg.Connection) -> None:
            await conn.execute(
                "INSERT INTO partitions (topic_id, partition, cleaner_checkpoint) VALUES ($1, $2, $3) "
                "ON CONFLICT (topic_id, partition) DO UPDATE SET cleaner_checkpoint = excluded.cleaner_checkpoint",
                topic_id, partition, offset,
            )

        self._queue(change)


class PostgresStorage(LogManager):
    def __init__(
        self,
        url: str,
        *,
        password: str | None = None,
        clock: Clock | None = None,
        broker_defaults: Mapping[str, str] | None = None,
        segment_bytes_override: int | None = None,
        producer_id_expiration_ms: int,
        internal_segment_bytes: Mapping[str, int] | None = None,
        random: RandomSource | None = None,
        application_name: str | None = None,
        tail_cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        super().__init__(clock=clock, broker_defaults=broker_defaults, segment_bytes_override=segment_bytes_override,
                         internal_segment_bytes=internal_segment_bytes, random=random)
        self.producer_id_expiration_ms = producer_id_expiration_ms
        self.url = url
        self.address = address_of(url)
        self._password = password
        self._connector = Connector(self._connect)
        self.flusher: PostgresFlusher = PostgresFlusher(self._connector, ChangeQueue())
        self._loaded: dict[PartitionKey, _Loaded] = {}
        self.schema_version_found = 0
        # The catalog as this broker last wrote it (or read it): what `_persist_catalog`
        # changes, so that it never touches a topic another broker of the cluster made.
        self._persisted: dict[uuid.UUID, tuple[str, int, str]] = {}
        # Cluster mode (storage/postgres/cluster/): the sessions are named after the broker
        # (so that the others can end a silent broker's sessions), and the logs served are
        # the partitions this broker leads; the others are closed, reloaded when led.
        self.application_name = application_name
        self.leadership: Leadership | None = None
        self._reloads = Connector(self._connect)  # reloads, beside the rounds' connection
        self._seen_in_db: set[uuid.UUID] = set()
        self.tail_cache = TailCache(tail_cache_bytes)
        self.flusher.on_committed = self.tail_cache.evict
        self.tail_cache.roll_active = self._roll_active
        self._segment_cap = segment_bytes_for(tail_cache_bytes)
        # Connections for reads of segments out of the cache, made at the first one.
        self._pool: asyncpg.Pool | None = None
        self._pool_lock = asyncio.Lock()

    def connect(self) -> Awaitable[asyncpg.Connection]:
        """A new connection as the engine's own (the cluster's membership session)."""
        return self._connect()

    @contextlib.asynccontextmanager
    async def _reader(self) -> AsyncIterator[asyncpg.Connection]:
        if self._pool is None:
            async with self._pool_lock:
                if self._pool is None:
                    kwargs: dict[str, Any] = {}
                    if self._password is not None and urlsplit(self.url).password is None:
                        kwargs["password"] = self._password
                    if self.application_name is not None:
                        kwargs["server_settings"] = {"application_name": self.application_name}
                    self._pool = await asyncpg.create_pool(
                        self.url, min_size=0, max_size=READER_CONNECTIONS, timeout=CONNECT_TIMEOUT_SECONDS,
                        **kwargs,
                    )
        async with self._pool.acquire(timeout=CONNECT_TIMEOUT_SECONDS) as conn:
            yield conn

    async def _connect(self) -> asyncpg.Connection:
        # The password from the URL, else `password` (a file's, given by the broker), else
        # PGPASSWORD / ~/.pgpass as libpq reads them (asyncpg does the same).
        kwargs: dict[str, Any] = {}
        if self.application_name is not None:
            kwargs["server_settings"] = {"application_name": self.application_name}
        if self._password is not None and urlsplit(self.url).password is None:
            kwargs["password"] = self._password
        return await asyncpg.connect(self.url, **kwargs)

    def producer_id_blocks(self, floor: int = 0) -> PostgresProducerIdBlocks:
        """Producer id blocks shared by every broker on this database (never below `floor`)."""
        return PostgresProducerIdBlocks(self._connect, floor)

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        password: str | None = None,
        clock: Clock | None = None,
        broker_defaults: Mapping[str, str] | None = None,
        segment_bytes_override: int | None = None,
        producer_id_expiration_ms: int,
        internal_segment_bytes: Mapping[str, int] | None = None,
        random: RandomSource | None = None,
        application_name: str | None = None,
        tail_cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> PostgresStorage:
        """Connect, migrate the schema and load every partition."""
        storage = cls(url, password=password, clock=clock, broker_defaults=broker_defaults,
                      segment_bytes_override=segment_bytes_override,
                      producer_id_expiration_ms=producer_id_expiration_ms,
                      internal_segment_bytes=internal_segment_bytes, application_name=application_name,
                      tail_cache_bytes=tail_cache_bytes, random=random)
        try:
            conn = await storage._connector.get()
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            reason = str(exc) or type(exc).__name__
            raise PostgresUnreachableError(f"cannot reach PostgreSQL at {storage.address}: {reason}") from None
        try:
            storage.schema_version_found = await migrate(conn)
            await storage._load(conn)
        except BaseException:
            await storage._connector.close()
            raise
        return storage

    async def _load(self, conn: asyncpg.Connection) -> None:
        async with conn.transaction():
            self.clean_start = bool(await conn.fetchval("SELECT clean_shutdown FROM engine_state WHERE id = 0"))
            # From now on a crash must count as one.
            await conn.execute("UPDATE engine_state SET clean_shutdown = false WHERE id = 0")
        records = [
            TopicRecord(r["name"], r["topic_id"], r["num_partitions"], json.loads(r["configs"]))
            for r in await conn.fetch("SELECT topic_id, name, num_partitions, configs FROM topics ORDER BY name")
        ]
        loaded: dict[PartitionKey, _Loaded] = defaultdict(_Loaded)
        for r in await conn.fetch(
            "SELECT topic_id, partition, log_start_offset, cleaner_checkpoint, active_segment_base FROM partitions"
        ):
            entry = loaded[(r["topic_id"], r["partition"])]
            entry.log_start = r["log_start_offset"]
            entry.cleaner_checkpoint = r["cleaner_checkpoint"]
            entry.active_segment_base = r["active_segment_base"]
        infos = {record.topic_id: self._install(record) for record in records}
        opened: set[PartitionKey] = set()
        orphans: set[PartitionKey] = set()

        def open_partition(key: PartitionKey) -> None:
            # One partition at a time, its rows dropped once in segments, the segments past
            # the tail cache dropped as it fills: the load holds about one partition's log
            # beyond the cache, not the whole log.
            info = infos.get(key[0])
            if info is None:
                orphans.add(key)
            elif key[1] < info.num_partitions:
                self._loaded = {key: loaded[key]} if key in loaded else {}
                self._logs[(info.name, key[1])] = self._open_log(info, key[1])
                opened.add(key)
            loaded.pop(key, None)
            self._loaded = {}

        current: PartitionKey | None = None
        async with conn.transaction(readonly=True, isolation="repeatable_read"):
            cursor = conn.cursor(
                "SELECT topic_id, partition, segment_base, base_offset, piece, payload FROM batches "
                "ORDER BY topic_id, partition, base_offset, piece",
                prefetch=1000,
            )
            async for r, payload in pieces.join_async(cursor):
                key = (r["topic_id"], r["partition"])
                if key != current:
                    if current is not None:
                        open_partition(current)
                    current = key
                loaded[key].batches.append((r["segment_base"], payload))
        if current is not None:
            open_partition(current)
        self._seen_in_db = {r.topic_id for r in records}
        self._persisted = {r.topic_id: (r.name, r.num_partitions, json.dumps(r.configs)) for r in records}
        for info in infos.values():
            for p in range(info.num_partitions):
                if (info.topic_id, p) not in opened:
                    open_partition((info.topic_id, p))
        # Left by topics deleted before their data was (a crash between the two).
        orphans.update(key for key in loaded if key[0] not in infos)
        self._loaded = {}
        for topic_id, partition in sorted(orphans):
            self.flusher.queue_change(_delete_partition_change(topic_id, partition))

    # --- hooks ------------------------------------------------------------------------

    async def _persist_catalog(self) -> None:
        # Only what changed since the last write: other brokers of a cluster write theirs.
        now = {r.topic_id: (r.name, r.num_partitions, json.dumps(r.configs)) for r in self._records.values()}
        gone = [topic_id for topic_id in self._persisted if topic_id not in now]
        created = [(topic_id, *row) for topic_id, row in now.items() if topic_id not in self._persisted]
        changed = [(topic_id, *row) for topic_id, row in now.items() if self._persisted.get(topic_id) not in (None, row)]
        self._persisted = now
        cluster = self.leadership is not None
        # The rows holding the created names once the INSERT is done, as the last attempt
        # of the round (the one that committed) read them.
        owners: dict[str, TopicRecord] = {}

        async def change(conn: asyncpg.Connection) -> None:
            if gone:
                await conn.execute("DELETE FROM topics WHERE topic_id = ANY($1::uuid[])", gone)
            if created:
                # A name another broker took first stays its. No conflict target: a name
                # another broker's round holds uncommitted makes this INSERT wait for that
                # round and then skip the row, where a target (or a NOT EXISTS check, blind
                # to uncommitted rows) failed the whole round on `topics_name_key`.
                await conn.executemany(
                    "INSERT INTO topics (topic_id, name, num_partitions, configs) "
                    "VALUES ($1, $2, $3, $4::jsonb) ON CONFLICT DO NOTHING",
                    created,
                )
                owners.clear()
                for r in await conn.fetch(
                    "SELECT topic_id, name, num_partitions, configs FROM topics WHERE name = ANY($1::text[])",
                    [row[1] for row in created],
                ):
                    owners[r["name"]] = TopicRecord(
                        r["name"], r["topic_id"], r["num_partitions"], json.loads(r["configs"])
                    )
            if changed:
                await conn.executemany(
                    "INSERT INTO topics (topic_id, name, num_partitions, configs) "
                    "SELECT $1, $2, $3, $4::jsonb WHERE NOT EXISTS "
                    "(SELECT 1 FROM topics WHERE name = $2 AND topic_id <> $1) "
                    "ON CONFLICT (topic_id) DO UPDATE SET name = excluded.name, "
                    "num_partitions = excluded.num_partitions, configs = excluded.configs",
                    changed,
                )
            if cluster:
                await conn.execute("SELECT pg_notify($1, 'catalog')", CLUSTER_CHANNEL)

        self.flusher.queue_change(change)
        await self.flusher.sync()
        for topic_id, name, *_ in created:
            owner = owners.get(name)
            local = self._records.get(name)
            if owner is not None and owner.topic_id != topic_id and local is not None and local.topic_id == topic_id:
                # Ours lost the name to another broker's, created at the same time: that
                # one is taken at once, as the catalog reload would (the creation then
                # answers TOPIC_ALREADY_EXISTS, LogManager._create).
                self._take(owner)

    def _open_log(self, info: TopicInfo, partition: int) -> Log:
        key = (info.topic_id, partition)
        found = self._loaded.get(key)
        persistence = _PostgresPersistence(self, key, found.epoch if found is not None else None)
        segments: list[LogSegment] = []
        if found is not None:
            for segment_base, payload in found.batches:
                if not segments or segments[-1].base_offset != segment_base:
                    segment = LogSegment.in_memory(
                        segment_base,
                        index_interval_bytes=info.config.index_interval_bytes,
                        index_max_bytes=info.config.segment_index_bytes,
                        now_ms=self.clock.now_ms(),
                    )
                    segment.store = persistence.store(segment_base)
                    segments.append(segment)
                segments[-1].append(BatchHeader.parse(payload), payload)
            for segment in segments:
                assert isinstance(segment.store, PostgresStore)
                segment.store.tracking = True
        log_start = found.log_start if found is not None else 0
        if not segments:
            segments.append(persistence.new_segment(log_start, info.config))
        elif found is not None and found.active_segment_base == segments[-1].next_offset:
            # Rolled, nothing written to the new segment yet.
            segments.append(persistence.new_segment(found.active_segment_base, info.config))
        log = Log(
            info.name,
            partition,
            info.config,
            segments,
            clock=self.clock,
            random=self.random,
            flusher=self.flusher,
            persistence=persistence,
            log_start_offset=log_start,
            producer_state=ProducerStateManager(
                MemorySnapshotStore({}), producer_id_expiration_ms=self.producer_id_expiration_ms
            ),
            segment_bytes_override=self._segment_bytes_override_for(info.name),
            segment_bytes_cap=self._segment_cap,
            appended=self.appended,
            cleaner_checkpoint=found.cleaner_checkpoint if found is not None else 0,
            new=found is None or not found.batches,
            cold=PostgresColdReads(key, self._reader),
        )
        persistence.log = log
        if not info.config.compact:
            for segment in segments[:-1]:
                if isinstance(segment.store, PostgresStore):
                    self.tail_cache.add(segment.store, persistence.may_evict)
            if isinstance(segments[-1].store, PostgresStore):
                self.tail_cache.activate(segments[-1].store)
        return log

    async def _delete_log_data(self, info: TopicInfo, partition: int, log: Log | None) -> None:
        if log is not None:
            log.delete()
        self.flusher.queue_change(_delete_partition_change(info.topic_id, partition))

    def _roll_active(self, excess: int) -> None:
        """Rolls the largest active segments whose batches are all committed, until about
        `excess` bytes can leave memory (storage/postgres/tail_cache.py)."""
        candidates: list[tuple[int, Log]] = []
        for log in self._logs.values():
            store = log.segments[-1].store if not log.closed and not log.config.compact else None
            if isinstance(store, PostgresStore) and not store.has_pending and store.size >= MIN_ROLL_BYTES:
                candidates.append((store.size, log))
        candidates.sort(key=lambda c: c[0], reverse=True)
        freed = 0
        for size, log in candidates:
            if freed >= excess:
                break
            log.roll()
            freed += size

    async def compact(self) -> int:
        # A topic made compacted after some of its segments left memory: the cleaner reads
        # segments whole, so they come back first.
        for log in list(self._logs.values()):
            if log.config.compact and not log.closed:
                for segment in list(log.segments):
                    store = segment.store
                    if isinstance(store, PostgresStore) and not store.resident:
                        try:
                            await self._restore(store)
                        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                            logger.warning("cannot read %s-%d back for the cleaner: %s", log.topic, log.partition, exc)
        return await super().compact()

    async def _restore(self, store: PostgresStore) -> None:
        topic_id, partition = store.key
        async with self._reader() as conn:
            rows = await conn.fetch(
                "SELECT payload FROM batches WHERE topic_id = $1 AND partition = $2 AND segment_base = $3 "
                "ORDER BY base_offset, piece",
                topic_id, partition, store.base_offset,
            )
        data = b"".join(r["payload"] for r in rows)
        # Batches below the log start may be gone (DeleteRecords): positions would move, so
        # such a segment stays out of memory (the cleaner skips it with an error logged)
        # until retention or the log start drops it.
        if store.live and not store.resident and len(data) == store.size:
            store.restore(data)

    async def checkpoint(self) -> None:
        self._check_open()
        await self.flusher.sync()

    async def close(self) -> None:
        if self._closed:
            return
        await self.flusher.close()
        self._closed = True
        for log in self.logs():
            log.closed = True
        try:
            conn = await self._connector.get()
            if not self.flusher._dirty:  # everything written is in PostgreSQL
                await conn.execute("UPDATE engine_state SET clean_shutdown = true WHERE id = 0")
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            logger.warning("PostgreSQL at %s: cannot mark the shutdown clean: %s", self.address, exc)
        finally:
            await self._connector.close()
            await self._reloads.close()
            await self._close_pool()

    async def _close_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(pool.close(), CONNECT_TIMEOUT_SECONDS)

    async def abort(self) -> None:
        """Drop everything without marking the shutdown clean (tests simulate crashes):
        what no round committed is lost."""
        self._closed = True
        await self.flusher.close_abruptly()
        for log in self.logs():
            log.closed = True
        self._connector.drop()
        self._reloads.drop()
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate()

    # --- cluster mode -------------------------------------------------------------------

    def enable_cluster(self, leadership: Leadership) -> None:
        """Serve only the partitions `leadership` says this broker leads: until then every
        log is closed, and the rounds are fenced (storage/postgres/cluster/leadership.py)."""
        self.leadership = leadership
        self.flusher.fence = leadership.fence
        self.flusher.served = lambda key: leadership.serving.get(key)
        leadership.on_fenced = self.release
        for log in self.logs():
            _abandon(log)

    def release(self, keys: set[PartitionKey]) -> None:
        """Stop serving these partitions at once: their logs close and their batches that no
        round committed are dropped (they were never acknowledged)."""
        for topic_id, partition in keys:
            name = self._by_id.get(topic_id)
            log = self._logs.get((name, partition)) if name is not None else None
            if log is not None:
                _abandon(log)

    async def reload_partition(self, key: PartitionKey, epoch: int) -> list[tuple[int, int]] | None:
        """Read a partition back from PostgreSQL as at start (its previous leader wrote
        there): segments, producer state, aborted transactions, LSO and high watermark;
        then begin leader epoch `epoch` at its log end. Returns the partition's epochs and
        their start offsets (Kafka's LeaderEpochFileCache); None when its topic is unknown
        here or the epoch is no longer this broker's."""
        topic_id, partition = key
        conn = await self._reloads.get()
        entry = _Loaded()
        entry.epoch = epoch
        if self.leadership is not None:
            # The rounds of this broker that passed their fence on the partition hold its
            # row FOR SHARE until they end: wait for them (a lock that conflicts, taken and
            # released in a transaction of its own), so that the snapshot below holds what
            # they committed. Led here again at the same epoch (a lost session), no epoch
            # bump waits for a round of the log dropped: read back before its COMMIT, the
            # log would hand its offsets out again.
            await conn.execute(
                "SELECT 1 FROM partition_leaders WHERE topic_id = $1 AND partition = $2 FOR NO KEY UPDATE",
                topic_id, partition,
            )
        async with conn.transaction(isolation="repeatable_read"):
            row = await conn.fetchrow(
                "SELECT log_start_offset, cleaner_checkpoint, active_segment_base FROM partitions "
                "WHERE topic_id = $1 AND partition = $2", topic_id, partition,
            )
            if row is not None:
                entry.log_start = row["log_start_offset"]
                entry.cleaner_checkpoint = row["cleaner_checkpoint"]
                entry.active_segment_base = row["active_segment_base"]
            rows = await conn.fetch(
                "SELECT segment_base, base_offset, piece, payload FROM batches WHERE topic_id = $1 AND partition = $2 "
                "ORDER BY base_offset, piece", topic_id, partition,
            )
            for r, payload in pieces.join(rows):
                entry.batches.append((r["segment_base"], payload))
            epochs = await _begin_epoch(conn, key, epoch, self.leadership, _log_end(entry))
        name = self._by_id.get(topic_id)
        if name is None or self._closed or epochs is None:
            return None
        info = self._topics[name]
        if partition >= info.num_partitions:
            return None
        old = self._logs.get((name, partition))
        if old is not None:
            _abandon(old)
        unopened = self._unopened.get(name)
        if unopened is not None:
            unopened.discard(partition)
            if not unopened:
                del self._unopened[name]
        # No suspension from here: `_open_log` reads `_loaded`.
        self._loaded = {key: entry}
        try:
            self._logs[(name, partition)] = self._open_log(info, partition)
        finally:
            self._loaded = {}
        return epochs

    async def reload_catalog(self) -> bool:
        """Take the topics other brokers created, changed or deleted; True if any did."""
        conn = await self._reloads.get()
        rows = await conn.fetch("SELECT topic_id, name, num_partitions, configs FROM topics")
        if self._closed:
            return False
        records = {
            r["topic_id"]: TopicRecord(r["name"], r["topic_id"], r["num_partitions"], json.loads(r["configs"]))
            for r in rows
        }
        changed = False
        for topic_id in self._seen_in_db - records.keys():
            name = self._by_id.get(topic_id)
            if name is not None:
                self._drop_local(name)
                changed = True
            self._persisted.pop(topic_id, None)
        for record in records.values():
            changed = self._take(record) or changed
        self._seen_in_db = set(records)
        return changed

    def _take(self, record: TopicRecord) -> bool:
        """Install the catalog's version of a topic; False if this broker holds it already."""
        local = self._records.get(record.name)
        if local is not None and local.topic_id != record.topic_id:
            # Ours lost the name to another broker's (created at the same time).
            self._drop_local(record.name)
            self._persisted.pop(local.topic_id, None)
            local = None
        if local == record:
            return False
        old_count = local.num_partitions if local is not None else 0
        stale_name = self._by_id.get(record.topic_id)
        if stale_name is not None and stale_name != record.name:
            self._drop_local(stale_name)
            old_count = 0
        info = self._install(record)
        for p in range(min(old_count, info.num_partitions)):
            log = self._logs.get((info.name, p))
            if log is not None:
                log.config = info.config
        if info.num_partitions > old_count:
            self._unopened.setdefault(info.name, set()).update(range(old_count, info.num_partitions))
        self._persisted[record.topic_id] = (record.name, record.num_partitions, json.dumps(record.configs))
        self._seen_in_db.add(record.topic_id)
        return True

    def _drop_local(self, name: str) -> None:
        """Forget a topic another broker deleted (its data is that broker's to delete)."""
        record = self._records.pop(name)
        del self._topics[name]
        self._by_id.pop(record.topic_id, None)
        for p in range(record.num_partitions):
            log = self._logs.pop((name, p), None)
            if log is not None:
                _abandon(log)
        for p in self._unopened.pop(name, ()):
            self.appended.notify(name, p)

    async def enforce_retention(self) -> int:
        # Only the logs served: another broker leads the others (cluster mode).
        self._check_open()
        return sum(log.enforce_retention() for log in list(self._logs.values()) if not log.closed)


def _log_end(entry: _Loaded) -> int:
    if not entry.batches:
        return max(entry.log_start, entry.active_segment_base)
    return BatchHeader.parse(entry.batches[-1][1]).next_offset


async def _begin_epoch(
    conn: asyncpg.Connection, key: PartitionKey, epoch: int, leadership: Leadership | None, log_end: int
) -> list[tuple[int, int]] | None:
    """Within the reload's transaction: record that `epoch` starts at `log_end`, as Kafka's
    LeaderEpochFileCache.assign (entries starting there or later had no records and go),
    only while the partition's row still names this broker at `epoch` (FOR SHARE, as a
    round's fence); the epochs after it, or None when fenced."""
    topic_id, partition = key
    if leadership is not None:
        row = await conn.fetchrow(
            "SELECT leader_id, leader_epoch FROM partition_leaders WHERE topic_id = $1 AND partition = $2 FOR SHARE",
            topic_id, partition,
        )
        if row is None or (row["leader_id"], row["leader_epoch"]) != (leadership.node_id, epoch):
            return None
    await conn.execute(
        "DELETE FROM leader_epochs WHERE topic_id = $1 AND partition = $2 AND (start_offset >= $3 OR leader_epoch >= $4)",
        topic_id, partition, log_end, epoch,
    )
    await conn.execute(
        "INSERT INTO leader_epochs (topic_id, partition, leader_epoch, start_offset) VALUES ($1, $2, $3, $4)",
        topic_id, partition, epoch, log_end,
    )
    return [
        (r["leader_epoch"], r["start_offset"])
        for r in await conn.fetch(
            "SELECT leader_epoch, start_offset FROM leader_epochs WHERE topic_id = $1 AND partition = $2 "
            "ORDER BY leader_epoch", topic_id, partition,
        )
    ]


def _abandon(log: Log) -> None:
    """Close a log no longer served, dropping the batches no round took yet; the round their
    writers wait for fails (they must not be acknowledged)."""
    log.closed = True
    log._changed()
    dropped = 0
    for segment in log._segments:
        store = segment.store
        if isinstance(store, PostgresStore):
            dropped += store.abandon()
        log._flusher.discard(store)
    if dropped and isinstance(log._flusher, PostgresFlusher):
        log._flusher.fail_next_round(
            FencedError([(uuid.UUID(int=0), log.partition)], f"no longer the leader of {log.topic}-{log.partition}")
        )


def _delete_partition_change(topic_id: uuid.UUID, partition: int) -> Any:
    async def change(conn: asyncpg.Connection) -> None:
        await conn.execute("DELETE FROM batches WHERE topic_id = $1 AND partition = $2", topic_id, partition)
        await conn.execute("DELETE FROM partitions WHERE topic_id = $1 AND partition = $2", topic_id, partition)

    return change


def read_password_file(path: str | os.PathLike[str]) -> str:
    """The first line of a password file (as a Docker secret is mounted)."""
    with open(path, encoding="utf-8") as f:
        return f.readline().rstrip("\r\n")
