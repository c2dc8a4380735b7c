"""A partition's log: an ordered list of segments, offsets, rolling, reads, retention.

Shared by both engines; what differs (files vs. bytearrays, checkpoints) is injected as
a segment factory and a `LogPersistence`.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import functools
from collections.abc import Callable
from typing import Protocol

from protocol import record_batch as rb
from protocol.limits import INT32_MAX
from protocol.record_batch import BatchHeader, TimestampType

from .append_signal import AppendSignal
from .clock import Clock
from .engine import (
    EARLIEST_LOCAL_TIMESTAMP,
    EARLIEST_TIMESTAMP,
    LATEST_TIMESTAMP,
    MAX_TIMESTAMP,
    READ_COMMITTED,
    READ_UNCOMMITTED,
    VISIBILITY_WAIT_SECONDS,
    AbortedTransaction,
    AppendOrigin,
    AppendResult,
    OffsetAndTimestamp,
    ReadResult,
)
from .errors import (
    InvalidRecordError,
    KafkaStorageError,
    MessageTooLargeError,
    OffsetOutOfRangeError,
    from_batch_error,
)
from .flusher import GroupCommitFlusher
from .log_loader import rebuild_producer_state
from .producer_state import ProducerInfo, ProducerStateManager
from .random_source import SYSTEM_RANDOM, RandomSource
from .record_validation import TimestampBounds, check_records, header_timestamps_allowed
from .segment import LogSegment
from .topic_config import TopicConfig


class LogPersistence(Protocol):
    """Engine-specific side effects of log changes."""

    def new_segment(self, base_offset: int, config: TopicConfig) -> LogSegment: ...

    def segment_created(self, segment: LogSegment) -> None:
        """A segment file appeared: its directory entry must reach disk too."""
        ...

    def save_log_start_offset(self, offset: int) -> None: ...

    async def log_start_saved(self) -> None:
        """Return once the log start saved last is durable; raise if it never will be (a
        DeleteRecords is answered only then)."""
        ...

    # --- log cleaner (storage.cleaner) ---

    def new_cleaned_segment(self, base_offset: int, config: TopicConfig) -> LogSegment:
        """An empty segment to write a cleaned copy into, invisible to a reload until swapped in."""
        ...

    def swap_segments(self, old: list[LogSegment], new: LogSegment) -> None:
        """Make `new` (complete and durable) replace `old`, crash-safely; deletes `old`."""
        ...

    def discard_cleaned_segment(self, segment: LogSegment) -> None: ...

    def save_cleaner_checkpoint(self, offset: int) -> None: ...


# Batches a search by timestamp decodes at most: past the first whose max timestamp reaches
# the target, only a batch straddling the log start can lack the record.
COLD_SEARCH_BATCHES = 2


class SegmentNotResident(Exception):
    """A segment's bytes are not in memory (the PostgreSQL engine's tail cache dropped
    them): raised by its store's read, caught by the async paths that can load them."""

    def __init__(self, store: object) -> None:
        super().__init__("segment not in memory")
        self.store = store


class ColdReads(Protocol):
    """Reads of segments whose bytes an engine keeps elsewhere (the PostgreSQL engine's
    segments older than its tail cache: storage/postgres/tail_cache.py)."""

    def resident(self, segment: LogSegment) -> bool: ...

    async def read(self, fetch_offset: int, max_bytes: int, upper_bound: int, min_one_batch: bool) -> bytes:
        """Whole batches from the one holding `fetch_offset`, as `LogSegment.read` returns
        them, but across segments."""
        ...

    async def batches(self, from_offset: int, limit: int, min_max_timestamp: int) -> list[bytes]:
        """Up to `limit` whole batches in offset order from the one holding `from_offset`,
        only those whose max timestamp is at least `min_max_timestamp` (the searches by
        timestamp)."""
        ...


class Log:
    def __init__(
        self,
        topic: str,
        partition: int,
        config: TopicConfig,
        segments: list[LogSegment],
        *,
        clock: Clock,
        flusher: GroupCommitFlusher,
        persistence: LogPersistence,
        storage_flusher: GroupCommitFlusher | None = None,
        log_start_offset: int = 0,
        producer_state: ProducerStateManager,
        max_snapshot_offset: int | None = None,
        segment_bytes_override: int | None = None,
        cleaner_checkpoint: int = 0,
        appended: AppendSignal | None = None,
        new: bool = False,
        writes_need_sync: bool = True,
        cold: ColdReads | None = None,
        segment_bytes_cap: int | None = None,
        random: RandomSource = SYSTEM_RANDOM,
    ) -> None:
        """`new`: a partition just created, with nothing on disk to rebuild state from.
        `writes_need_sync`: a write is durable only once an fsync round covers it (False:
        durable when written, as in memory). `flusher`: the rounds of this log's files;
        `storage_flusher`: those of every log of the storage (the same by default; the file
        engine gives each partition a lane of its own, storage.flusher.PartitionedFlusher).
        `random`: where its segments' roll jitters are drawn from."""
        assert segments, "a log always has an active segment"
        self._topic = topic
        self._partition = partition
        self.config = config
        self._segments = segments
        self._bases = [s.base_offset for s in segments]
        self._clock = clock
        self._random = random
        self._flusher = flusher
        self._storage_flusher = storage_flusher or flusher
        self._persistence = persistence
        self._cold = cold
        self._segment_bytes_cap = segment_bytes_cap
        self._appended = appended if appended is not None else AppendSignal()
        self._segment_bytes_override = segment_bytes_override
        self._next_offset = segments[-1].next_offset
        self._activate(segments[-1])
        self._log_start_offset = min(max(log_start_offset, segments[0].base_offset), self._next_offset)
        self.producer_state = producer_state
        if not new:
            # After a crash only snapshots at or below the recovery point are trusted.
            rebuild_producer_state(
                self.producer_state,
                segments,
                self._next_offset,
                max_snapshot_offset=self._next_offset if max_snapshot_offset is None else max_snapshot_offset,
            )
        # Single broker: "replicated" is "durable", so the high watermark is the end of the
        # fsynced prefix (Kafka's moves once every in-sync replica has the record). What a
        # load finds on disk survived, so it starts at the log end.
        self._high_watermark = self._next_offset
        self.producer_state.on_high_watermark(self._high_watermark)
        self._writes_need_sync = writes_need_sync
        # The fsync rounds covering writes not yet durable -> the log end each makes
        # durable; in the order the rounds were started, so the last covers the log end.
        self._round_ends: dict[asyncio.Future[None], int] = {}
        self.closed = False
        # Log cleaner bookkeeping: offsets below the checkpoint were cleaned already; the
        # horizon is the earliest delete horizon of a retained tombstone or marker
        # (None: unknown until the cleaner scans; INT64 max: none).
        self.cleaner_checkpoint = cleaner_checkpoint
        self.cleaner_horizon: int | None = None
        self.cleaning = False

    # --- offsets ----------------------------------------------------------------------

    @property
    def topic(self) -> str:
        return self._topic

    @property
    def partition(self) -> int:
        return self._partition

    @property
    def log_start_offset(self) -> int:
        return self._log_start_offset

    @property
    def log_end_offset(self) -> int:
        return self._next_offset

    @property
    def high_watermark(self) -> int:
        return self._high_watermark

    @property
    def last_stable_offset(self) -> int:
        unstable = self.producer_state.first_unstable_offset()
        if unstable is None:
            return self._high_watermark
        return max(self._log_start_offset, min(unstable, self._high_watermark))

    @property
    def size_bytes(self) -> int:
        return sum(s.size for s in self._segments)

    @property
    def segments(self) -> list[LogSegment]:
        return self._segments

    @property
    def active_segment(self) -> LogSegment:
        return self._segments[-1]

    def segment_base_offsets(self) -> list[int]:
        return list(self._bases)

    @property
    def segment_bytes(self) -> int:
        """The size a segment rolls at (and the cleaner's limit for a merged segment); an
        engine may cap it (the PostgreSQL engine's tail cache drops whole segments)."""
        size = self._segment_bytes_override or self.config.segment_bytes
        return size if self._segment_bytes_cap is None else min(size, self._segment_bytes_cap)

    @property
    def flusher(self) -> GroupCommitFlusher:
        """The fsync rounds of this log's files (tests hold them with a target of their own)."""
        return self._flusher

    @property
    def persistence(self) -> LogPersistence:
        return self._persistence

    # --- append -----------------------------------------------------------------------

    async def append(
        self,
        records: bytes | bytearray | memoryview,
        *,
        durable: bool = False,
        origin: AppendOrigin = AppendOrigin.CLIENT,
        leader_epoch: int = 0,
        transaction_version: int = 0,
        lazy: bool = False,
        trusted: bool = False,
    ) -> AppendResult:
        result = self.append_nowait(
            records, origin=origin, leader_epoch=leader_epoch, transaction_version=transaction_version, lazy=lazy,
            trusted=trusted,
        )
        if durable:
            end = self._next_offset
            # Everything written so far, in every log: a coordinator's durable write may
            # stand for earlier writes elsewhere (a PrepareCommit for its transaction's data).
            await self._storage_flusher.sync()
            self._check_durable(end)
        return result

    async def sync(self) -> None:
        """Return once everything written to this log so far is durable (a Produce with
        acks=all): its own files' rounds only, never another partition's."""
        end = self._next_offset
        await self._flusher.sync()
        self._check_durable(end)

    def _check_durable(self, end: int) -> None:
        """Raise unless the high watermark covers `end` once the rounds waited for ended
        well. A flusher's sync() waits for the round that takes what is dirty when it is
        called, not for one already running: in a PostgreSQL cluster that running round
        may hold this log's batch and fail (its fence) as the log is dropped (its partition
        lost, storage/postgres/engine.py `_abandon`), so that no later round writes it,
        while the round waited for commits the other logs' writes. The high watermark
        moves only when a round that holds the batch commits (or fsyncs it)."""
        if self._high_watermark < end:
            raise KafkaStorageError(
                f"writes to {self._topic}-{self._partition} below offset {end} were not made durable"
                + (" (the log was dropped)" if self.closed else "")
            )

    def append_nowait(
        self,
        records: bytes | bytearray | memoryview,
        *,
        origin: AppendOrigin = AppendOrigin.CLIENT,
        leader_epoch: int = 0,
        transaction_version: int = 0,
        lazy: bool = False,
        trusted: bool = False,
    ) -> AppendResult:
        """The synchronous part of append: validate, assign offsets, write (no fsync).
        `lazy`: the write joins the next fsync round, started on the next turn of the event
        loop unless a write someone waits for starts it first
        (GroupCommitFlusher.join_next_round). `trusted`: the batch was built in this
        process by a coordinator (origin COORDINATOR, one non-control batch, its CRC
        computed by the builder, its timestamps the clock's): only its size is checked,
        not its CRC and records again, and a bytearray is stamped in place (the caller
        gives it up). A client's batch is always validated."""
        if self.closed:
            raise KafkaStorageError(f"log {self._topic}-{self._partition} is closed")
        config = self.config
        now = self._clock.now_ms()
        log_append_time = now if config.log_append_time else None
        if trusted and origin is AppendOrigin.COORDINATOR and log_append_time is None:
            header = BatchHeader.parse(records)
            if header.size > config.max_message_bytes:
                raise MessageTooLargeError(
                    f"batch of {header.size} bytes exceeds max.message.bytes {config.max_message_bytes}"
                )
        else:
            try:
                header = rb.validate_produce_records(
                    records,
                    max_message_bytes=config.max_message_bytes,
                    allow_control=origin is not AppendOrigin.CLIENT,
                )
            except rb.RecordBatchError as exc:
                raise from_batch_error(exc) from exc
            trusted = False
            if not header.is_control:
                self._check_records(records, header, now, origin, log_append=log_append_time is not None)
        if header.is_control and transaction_version >= 2:
            self.producer_state.check_strict_marker_epoch(header.producer_id, header.producer_epoch)
        duplicate = self.producer_state.before_append(header, records, origin, now)
        if duplicate is not None:
            # A retry of a batch already in the log: its original offsets, nothing written.
            return AppendResult(duplicate.base_offset, duplicate.last_offset, duplicate.log_append_time,
                                self._log_start_offset)
        base_offset = self._next_offset
        if header.last_offset_delta > INT32_MAX - 1:
            raise InvalidRecordError("batch offset delta too large")
        # A frame gathered from several reads is writable: stamp it in place, not a copy.
        if (trusted and isinstance(records, bytearray)) or (isinstance(records, memoryview) and not records.readonly):
            buf: bytearray | memoryview = records
        else:
            buf = bytearray(records)
        rb.assign_offsets(buf, base_offset, partition_leader_epoch=leader_epoch, log_append_time=log_append_time)
        header = BatchHeader.parse(buf)
        try:
            # A roll creates files, and one of a segment loaded from its indexes reads its
            # first batch's header: their I/O errors are the write's.
            segment = self._maybe_roll(header, now)
            segment.append(header, buf)
        except OSError as exc:
            raise KafkaStorageError(f"write to {self._topic}-{self._partition} failed: {exc}") from exc
        self._flusher.mark_dirty(segment.store)
        self._next_offset = header.next_offset
        aborted = self.producer_state.after_append(header, buf, origin, now)
        if aborted is not None:
            try:
                segment.txn_index.append(aborted)
            except OSError as exc:
                raise KafkaStorageError(f"write to {self._topic}-{self._partition} txn index failed: {exc}") from exc
        if self._writes_need_sync:
            self._watch_round(lazy)
        else:
            self._advance_high_watermark(self._next_offset)
        return AppendResult(base_offset, header.last_offset, -1 if log_append_time is None else log_append_time,
                            self._log_start_offset)

    def _watch_round(self, lazy: bool) -> None:
        """Visible once durable: the high watermark moves to this write's end when the fsync
        round covering it ends, a round started now if none is running (group commit: a
        write nobody waits for joins the next round, it never waits for a later sync())."""
        round_ = self._flusher.join_next_round() if lazy else self._flusher.request_round()
        if round_ is None:  # not reached: the write above marked its file dirty
            self._advance_high_watermark(self._next_offset)
            return
        ends = self._round_ends
        if round_ not in ends:
            round_.add_done_callback(self._forget_round)
            self._flusher.after_round(round_, functools.partial(self._round_durable, round_))
        ends[round_] = self._next_offset

    def _round_durable(self, round_: asyncio.Future[None]) -> None:
        end = self._round_ends.get(round_)
        if end is not None and not self.closed:
            self._advance_high_watermark(end)

    def _forget_round(self, round_: asyncio.Future[None]) -> None:
        # A failed round leaves its writes invisible (the flusher marks them dirty again and
        # the broker halts, as Kafka does on a log dir failure).
        self._round_ends.pop(round_, None)

    def _advance_high_watermark(self, offset: int) -> None:
        if offset <= self._high_watermark:
            return
        self._high_watermark = offset
        self.producer_state.on_high_watermark(offset)
        # Records (and a marker's decision, which moves the LSO) became visible: parked
        # fetches of this partition re-read, at once when an fsync round's end moved it.
        self._appended.notify(self._topic, self._partition, now=True)

    async def wait_visible(self, timeout: float) -> None:
        """Wait, at most `timeout` seconds, until what is written now is below the high
        watermark: the fsync round covering it is already running or queued, so this is
        at most two rounds (from an append to its visibility: a median of 0.25-0.3 ms and
        a 99th percentile near 1 ms on this project's test machine). Used where answering with
        the high watermark as it stands would be stale to a producer that just had its
        acks=1 answer (ListOffsets latest, a Fetch at the log end); a failed or slow round
        leaves the answer as it stands."""
        round_ = self.visibility_round()
        if round_ is None:
            return
        self._flusher.hasten(round_)
        with contextlib.suppress(TimeoutError, KafkaStorageError):
            await asyncio.wait_for(asyncio.shield(round_), timeout)

    def visibility_round(self) -> asyncio.Future[None] | None:
        """The fsync round after which everything written so far is below the high
        watermark (None: it already is, or a failed round left it invisible). The round
        moves the high watermark before its waiters resume (GroupCommitFlusher.after_round)."""
        if self._high_watermark >= self._next_offset or not self._round_ends:
            return None
        # The newest round covers the log end: rounds were started in insertion order.
        return next(reversed(self._round_ends))

    def _check_records(
        self, records: bytes | bytearray | memoryview, header: BatchHeader, now: int, origin: AppendOrigin,
        *, log_append: bool,
    ) -> None:
        """Kafka's per-record checks (storage.record_validation). Only compacted topics pay
        for decoding every batch (keys are checked on client writes: the coordinators'
        records always have one); elsewhere the header decides (its timestamps, a
        LogAppendTime claimed by the producer), and records are decoded only to name the
        ones at fault."""
        config = self.config
        bounds = None if log_append else TimestampBounds(
            int(config.get("message.timestamp.before.max.ms")), int(config.get("message.timestamp.after.max.ms"))
        )
        compacted = origin is AppendOrigin.CLIENT and config.compact
        if (
            compacted
            or header.timestamp_type is TimestampType.LOG_APPEND_TIME
            or (bounds is not None and not header_timestamps_allowed(header, now, bounds))
        ):
            check_records(records, header, topic_partition=f"{self._topic}-{self._partition}",
                          compacted=compacted, now=now, bounds=bounds)

    def _maybe_roll(self, header: BatchHeader, now: int) -> LogSegment:
        """Kafka's UnifiedLog.maybeRoll and LogSegment.shouldRoll: a segment holding data
        rolls when the batch would not fit, when the batch's max timestamp is segment.ms
        (less the segment's jitter) past the first batch's (an older batch never rolls
        it), when an index is full, or when the batch's offsets are too far from its base
        for the indexes' 32-bit deltas."""
        segment = self._segments[-1]
        if segment.is_empty:
            return segment
        if (
            segment.size + header.size > self.segment_bytes
            or segment.time_waited_for_roll(now, header.max_timestamp)
            > self.config.max_segment_ms - segment.roll_jitter_ms
            or segment.is_index_full
            or header.last_offset - segment.base_offset > INT32_MAX
        ):
            return self.roll(now)
        return segment

    def roll(self, now: int | None = None) -> LogSegment:
        """Close the active segment for appends and start a new one at the log end."""
        active = self._segments[-1]
        if active.is_empty:
            return active
        active.on_become_inactive()
        # Its cut to size must be durable before anything after it is: the round that
        # acknowledges the new segment's first write syncs it too.
        self._flusher.mark_dirty(active.store)
        segment = self._persistence.new_segment(self._next_offset, self.config)
        segment.created_ms = self._clock.now_ms() if now is None else now
        self._segments.append(segment)
        self._bases.append(segment.base_offset)
        self._persistence.segment_created(segment)
        self._activate(segment)
        with contextlib.suppress(OSError):  # only speeds up the next load; the replay covers it
            self.producer_state.take_snapshot(self._next_offset)
        return segment

    def _activate(self, segment: LogSegment) -> None:
        """The segment appends go to: its roll jitter is drawn (Kafka draws one for each
        segment it creates or loads; only the active one's is ever used), and with
        `preallocate`, zeros are kept ahead of its data, up to the size it rolls at
        (storage.files.FileStore)."""
        segment.roll_jitter_ms = self.config.random_segment_jitter(self._random)
        if self.config.get("preallocate"):
            segment.store.preallocate(self.segment_bytes)

    # --- reads ------------------------------------------------------------------------

    async def read(
        self,
        fetch_offset: int,
        max_bytes: int,
        *,
        min_one_batch: bool = True,
        upper_bound: int | None = None,
        file_records: bool = False,
    ) -> ReadResult:
        cold = self._cold
        if cold is not None and self._segments:
            index = max(0, bisect.bisect_right(self._bases, fetch_offset) - 1)
            if not cold.resident(self._segments[index]):
                return await self._read_cold(cold, fetch_offset, max_bytes, min_one_batch, upper_bound)
        return self.read_now(fetch_offset, max_bytes, min_one_batch=min_one_batch, upper_bound=upper_bound,
                             file_records=file_records)

    async def _read_cold(
        self, cold: ColdReads, fetch_offset: int, max_bytes: int, min_one_batch: bool, upper_bound: int | None
    ) -> ReadResult:
        """`read_now` for an offset in a segment the engine keeps out of memory: the same
        checks and bounds, taken before the engine's query (what it returns was committed
        below them, and a concurrent append only adds batches past them)."""
        hw = self._high_watermark
        start = self._log_start_offset
        end = self._next_offset
        lso = self.last_stable_offset
        if fetch_offset < start or fetch_offset > end:
            raise OffsetOutOfRangeError(
                f"offset {fetch_offset} outside [{start}, {end}] of {self._topic}-{self._partition}"
            )
        bound = hw if upper_bound is None else min(upper_bound, end)
        data = b"" if fetch_offset >= bound else await cold.read(fetch_offset, max_bytes, bound, min_one_batch)
        return ReadResult(data, hw, lso, start, end)

    def read_now(
        self, fetch_offset: int, max_bytes: int, *, min_one_batch: bool = True, upper_bound: int | None = None,
        file_records: bool = False,
    ) -> ReadResult:
        hw = self._high_watermark
        start = self._log_start_offset
        end = self._next_offset
        lso = self.last_stable_offset

        def result(data: bytes | memoryview) -> ReadResult:
            return ReadResult(data, hw, lso, start, end)

        if fetch_offset < start or fetch_offset > end:
            raise OffsetOutOfRangeError(
                f"offset {fetch_offset} outside [{start}, {end}] of {self._topic}-{self._partition}"
            )
        bound = hw if upper_bound is None else min(upper_bound, end)
        if fetch_offset >= bound:
            return result(b"")
        index = max(0, bisect.bisect_right(self._bases, fetch_offset) - 1)
        for segment in self._segments[index:]:
            found = segment.find_batch(fetch_offset)
            if found is None:
                continue  # offset is past this segment's data (compaction gap): next one
            position, header = found
            if header.base_offset >= bound:
                return result(b"")
            # Like Kafka, one fetch is served from a single segment.
            if file_records:
                in_file = segment.file_records(position, max_bytes, bound, min_one_batch)
                if in_file is not None:
                    return ReadResult(b"", hw, lso, start, end, in_file)
            return result(segment.read(position, max_bytes, bound, min_one_batch))
        return result(b"")

    def aborted_transactions(self, start_offset: int, end_offset: int) -> list[AbortedTransaction]:
        """Aborted transactions overlapping [start_offset, end_offset): their ABORT marker is
        at or after the start (so it lives in the segment holding the start or a later one)
        and their first offset is below the end."""
        found: list[AbortedTransaction] = []
        index = max(0, bisect.bisect_right(self._bases, start_offset) - 1)
        for segment in self._segments[index:]:
            entries, complete = segment.txn_index.collect(start_offset, end_offset)
            found.extend(AbortedTransaction(e.producer_id, e.first_offset) for e in entries)
            if complete:
                break
        return found

    def active_producers(self) -> list[ProducerInfo]:
        return self.producer_state.active_producers()

    def needs_verification(self, header: BatchHeader) -> bool:
        return self.producer_state.needs_verification(header)

    def take_producer_snapshot(self, *, durable: bool) -> None:
        self.producer_state.take_snapshot(self._next_offset, durable=durable)

    # --- list offsets -----------------------------------------------------------------

    async def list_offset(
        self, timestamp: int, *, isolation_level: int | None = READ_UNCOMMITTED
    ) -> OffsetAndTimestamp | None:
        # As Kafka's Partition.fetchOffsetForTimestamp: "latest" is the last fetchable
        # offset, and a record found by timestamp (or the max-timestamp record) counts only
        # below it, so a read_committed consumer never learns of undecided records.
        if timestamp in (EARLIEST_TIMESTAMP, EARLIEST_LOCAL_TIMESTAMP):
            return OffsetAndTimestamp(self._log_start_offset, -1)
        if isolation_level is not None:
            # A producer answered at acks=1 (before its fsync) that asks for the latest
            # offset next must see its records: wait for the round already covering them
            # rather than answer a high watermark one round old.
            await self.wait_visible(VISIBILITY_WAIT_SECONDS)
        last_fetchable = self.last_fetchable_offset(isolation_level)
        if timestamp == LATEST_TIMESTAMP:
            return OffsetAndTimestamp(last_fetchable, -1)
        if timestamp < 0 and timestamp != MAX_TIMESTAMP:
            return None
        try:
            try:
                if timestamp == MAX_TIMESTAMP:
                    found = self._max_timestamp_offset()
                else:
                    found = self._offset_for_timestamp(timestamp)
            except SegmentNotResident:
                # A segment out of memory: the same search by the engine's query.
                if self._cold is None:
                    raise
                found = await self._search_cold(self._cold, timestamp)
        except rb.RecordBatchError as exc:  # records read back from disk failed to decode
            raise from_batch_error(exc) from exc
        return found if found is not None and found.offset < last_fetchable else None

    def last_fetchable_offset(self, isolation_level: int | None) -> int:
        """The LSO (read_committed), the high watermark (read_uncommitted), or the log end
        for requests that are not a consumer's (no isolation level)."""
        if isolation_level is None:
            return self._next_offset
        return self.last_stable_offset if isolation_level == READ_COMMITTED else self._high_watermark

    def _max_timestamp_segment(self) -> LogSegment | None:
        best: LogSegment | None = None
        for segment in self._segments:
            if segment.max_timestamp >= 0 and (best is None or segment.max_timestamp > best.max_timestamp):
                best = segment
        return best

    def _max_timestamp_offset(self) -> OffsetAndTimestamp | None:
        best = self._max_timestamp_segment()
        if best is None:
            return None
        found = best.find_batch(best.offset_of_max_timestamp)
        if found is None:
            return None
        position, header = found
        return self._max_timestamp_in(header, best.store.read(position, header.size))

    def _max_timestamp_in(self, header: BatchHeader, data: bytes | bytearray | memoryview) -> OffsetAndTimestamp:
        batch = rb.decode_batch(data)
        for record in batch.records:
            if record.timestamp == header.max_timestamp and record.offset >= self._log_start_offset:
                return OffsetAndTimestamp(record.offset, record.timestamp)
        return OffsetAndTimestamp(header.last_offset, header.max_timestamp)

    async def _search_cold(self, cold: ColdReads, timestamp: int) -> OffsetAndTimestamp | None:
        """The searches by timestamp over batches the engine reads back (`ColdReads`): the
        batch holding the segment's max-timestamp offset, or the first batches whose max
        timestamp reaches the target, decoded as from a segment."""
        start = self._log_start_offset
        if timestamp == MAX_TIMESTAMP:
            best = self._max_timestamp_segment()
            if best is None:
                return None
            for data in await cold.batches(best.offset_of_max_timestamp, 1, -1):
                return self._max_timestamp_in(BatchHeader.parse(data), data)
            return None
        for data in await cold.batches(start, COLD_SEARCH_BATCHES, timestamp):
            for record in rb.decode_batch(data).records:
                if record.timestamp >= timestamp and record.offset >= start:
                    return OffsetAndTimestamp(record.offset, record.timestamp)
        return None

    def _offset_for_timestamp(self, target: int) -> OffsetAndTimestamp | None:
        start = self._log_start_offset
        first = max(0, bisect.bisect_right(self._bases, start) - 1)
        for segment in self._segments[first:]:
            if segment.max_timestamp < target:
                continue
            # The time index gets us close; then walk headers and decode only candidates.
            from_offset = max(segment.time_index.lookup_before(target), start)
            _, position = segment.offset_index.lookup(from_offset)
            for pos, header in segment.iter_headers(position):
                if header.max_timestamp < target or header.last_offset < start:
                    continue
                batch = rb.decode_batch(segment.store.read(pos, header.size))
                for record in batch.records:
                    if record.timestamp >= target and record.offset >= start:
                        return OffsetAndTimestamp(record.offset, record.timestamp)
        return None

    # --- log start, retention ---------------------------------------------------------

    async def delete_records_before(self, offset: int) -> int:
        if offset == -1 or offset > self._high_watermark:
            # Bounded by the high watermark: first let records already written (an acks=1
            # producer was answered before their fsync) become visible.
            await self.wait_visible(VISIBILITY_WAIT_SECONDS)
        if offset == -1:
            offset = self._high_watermark
        if offset < 0 or offset > self._high_watermark:
            raise OffsetOutOfRangeError(
                f"cannot delete before {offset}: high watermark of {self._topic}-{self._partition} is "
                f"{self._high_watermark}"
            )
        if offset > self._log_start_offset:
            self._log_start_offset = offset
            self._persistence.save_log_start_offset(offset)
            self._delete_leading(lambda seg, nxt: nxt is not None and nxt <= self._log_start_offset)
            self.producer_state.on_log_start_offset(self._segments[0].base_offset)
            self._changed()
        start = self._log_start_offset
        # Answered once durable (Kafka answers once every replica's low watermark is
        # there), whether moved here or by a call not yet answered.
        await self._persistence.log_start_saved()
        return start

    def enforce_retention(self) -> int:
        """Delete old segments by retention.ms / retention.bytes (never the active one)."""
        config = self.config
        if not config.delete:
            return 0
        deleted = 0
        retention_ms = config.retention_ms
        if retention_ms >= 0:
            now = self._clock.now_ms()
            deleted += self._delete_leading(lambda seg, _nxt: now - seg.max_timestamp > retention_ms)
        retention_bytes = config.retention_bytes
        if retention_bytes >= 0:
            excess = self.size_bytes - retention_bytes

            def over_size(seg: LogSegment, _nxt: int | None) -> bool:
                nonlocal excess
                if excess - seg.size >= 0:
                    excess -= seg.size
                    return True
                return False

            deleted += self._delete_leading(over_size)
        return deleted

    def _delete_leading(self, predicate: Callable[[LogSegment, int | None], bool]) -> int:
        """Delete segments from the oldest while `predicate(segment, next_base)` holds, as
        Kafka's UnifiedLog only segments wholly below the high watermark (never records a
        consumer could not have read yet)."""
        deleted = 0
        while len(self._segments) > 1:
            segment = self._segments[0]
            if self._bases[1] > self._high_watermark or not predicate(segment, self._bases[1]):
                break
            self._segments.pop(0)
            self._bases.pop(0)
            self._flusher.discard(segment.store)
            segment.delete()
            deleted += 1
        if deleted:
            new_start = self._segments[0].base_offset
            if new_start > self._log_start_offset:
                self._log_start_offset = new_start
                self._persistence.save_log_start_offset(new_start)
                self.producer_state.on_log_start_offset(self._segments[0].base_offset)
                self._changed()
        return deleted

    # --- compaction (storage.cleaner does the work) -------------------------------------

    def cleanable_segments(self, now: int) -> list[LogSegment]:
        """Closed segments from the start that the cleaner may rewrite: wholly below the
        last stable offset (open transactions are never cleaned) and older than
        min.compaction.lag.ms. Never the active segment."""
        lag = int(self.config.get("min.compaction.lag.ms"))
        stable = self.last_stable_offset
        found: list[LogSegment] = []
        for i, segment in enumerate(self._segments[:-1]):
            end = self._bases[i + 1]
            if end > stable or (lag > 0 and segment.max_timestamp > now - lag):
                break
            found.append(segment)
        return found

    def next_segment_base(self, segment: LogSegment) -> int:
        """The base offset of the segment after `segment` (a segment's offsets end there)."""
        i = bisect.bisect_right(self._bases, segment.base_offset)
        return self._bases[i] if i < len(self._bases) else self._next_offset

    def replace_segments(self, old: list[LogSegment], new: LogSegment) -> bool:
        """Swap the cleaned `new` in for the consecutive segments `old`. False (and `new`
        discarded) when `old` is no longer in the log as it was (deleted by retention or
        DeleteRecords meanwhile, or the log closed). Runs on the event loop without
        suspending, so no read or append sees a half-swapped list."""
        try:
            i = next(k for k, seg in enumerate(self._segments) if seg is old[0])
        except StopIteration:
            i = -1
        if (
            self.closed
            or i < 0
            or i + len(old) >= len(self._segments)  # never the active segment
            or any(self._segments[i + k] is not seg for k, seg in enumerate(old))
        ):
            self._persistence.discard_cleaned_segment(new)
            return False
        try:
            self._persistence.swap_segments(old, new)
        except OSError as exc:
            raise KafkaStorageError(f"swapping cleaned segments of {self._topic}-{self._partition} failed: {exc}") from exc
        for seg in old:
            self._flusher.discard(seg.store)
        self._segments[i : i + len(old)] = [new]
        self._bases[i : i + len(old)] = [new.base_offset]
        self._changed()
        return True

    def save_cleaner_checkpoint(self, offset: int) -> None:
        self.cleaner_checkpoint = offset
        self._persistence.save_cleaner_checkpoint(offset)

    # --- lifecycle --------------------------------------------------------------------

    def sync_all(self) -> None:
        """fsync every segment and index file (runs in a worker thread)."""
        for segment in list(self._segments):
            segment.sync()

    def _changed(self) -> None:
        self._appended.notify(self._topic, self._partition)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._changed()
        self._segments[-1].on_become_inactive()
        for segment in self._segments:
            self._flusher.discard(segment.store)
            segment.close()

    def delete(self) -> None:
        self.closed = True
        self._changed()
        for segment in self._segments:
            self._flusher.discard(segment.store)
            segment.delete()
