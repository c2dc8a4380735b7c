"""Log compaction for `cleanup.policy=compact` topics: Kafka's LogCleaner, simplified.

One pass over a partition (`clean_log`):

1. Pick the cleanable range: the closed segments from the log start that lie wholly
   below the last stable offset and are older than min.compaction.lag.ms (never the
   active segment, never an open transaction). Clean when the dirty part (above the
   cleaner checkpoint) is at least min.cleanable.dirty.ratio of the range, or when a
   delete horizon of a retained tombstone or marker has passed.
2. Build the offset map, key -> highest offset in the range, from every record that is
   neither a control record nor part of an aborted transaction (Kafka's OffsetMap).
3. Rewrite the range, grouping consecutive segments up to segment.bytes, keeping a record
   when it is the latest of its key (or has no key). Records keep their offsets: a batch
   that lost records is rebuilt as one batch per run of consecutive offsets, each with
   its producer id, epoch, the sequence of its first record and the transactional flag,
   compressed with the batch's original codec; an untouched batch is copied byte for byte.
4. Swap each rewritten group in (`.cleaned` -> fsync -> `.swap` -> delete the old
   segments -> final name), then advance the cleaner checkpoint.

Transactions (Kafka's rules): batches of aborted transactions are dropped in the first
pass that sees them; a marker is kept while any batch of its transaction was seen in the
pass, then stamped with a delete horizon (now + delete.retention.ms) and dropped by a
pass after that horizon, together with its aborted-transaction index entry. The last
batch of every active producer is kept whole, so producer state replayed from the log
keeps its sequence numbers. Tombstones (null values) follow KIP-534: the first pass that
keeps one stamps its batch with a delete horizon (the batch's base timestamp with the
delete-horizon attribute bit, record timestamps unchanged); a pass after the horizon
drops it.

The decoding and writing run in a worker thread; only the swap of the segment list runs
on the event loop, without suspending.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from protocol import record_batch as rb
from protocol.limits import INT32_MAX, INT64_MAX
from protocol.record_batch import BatchHeader, Record

from .log import Log
from .producer_state import read_control_record
from .segment import LogSegment

logger = logging.getLogger(__name__)

NO_HORIZON = INT64_MAX
Runner = Callable[..., Awaitable[Any]]


@dataclass(slots=True)
class CleanStats:
    segments_before: int = 0
    segments_after: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    records_removed: int = 0
    batches_removed: int = 0


@dataclass(slots=True)
class _Plan:
    groups: list[list[LogSegment]]
    end: int  # first offset after the cleaned range
    now: int
    delete_retention_ms: int
    aborted: dict[int, list[tuple[int, int]]]  # producer id -> (first offset, marker offset)
    producer_last: dict[int, int]  # active producer id -> offset of its last data record
    config: Any


@dataclass(slots=True)
class _Cleaned:
    groups: list[tuple[list[LogSegment], LogSegment]] = field(default_factory=list)
    horizon: int = NO_HORIZON
    stats: CleanStats = field(default_factory=CleanStats)


# --- entry point ----------------------------------------------------------------------


async def clean_log(log: Log, now: int, *, run: Runner = asyncio.to_thread, force: bool = False) -> CleanStats | None:
    """Clean `log` if it is due; returns what was done, or None when nothing was."""
    if log.closed or log.cleaning or not log.config.compact:
        return None
    segments = log.cleanable_segments(now)
    if not segments:
        return None
    end = log.next_segment_base(segments[-1])
    first_dirty = max(log.cleaner_checkpoint, log.log_start_offset)
    dirty = sum(s.size for s in segments if s.base_offset >= first_dirty)
    total = sum(s.size for s in segments)
    ratio = dirty / total if total else 0.0
    min_ratio = float(log.config.get("min.cleanable.dirty.ratio"))
    due = force or (dirty > 0 and ratio >= min_ratio)
    log.cleaning = True
    try:
        if not due:
            if log.cleaner_horizon is None:
                log.cleaner_horizon = await run(_scan_horizon, segments)
            if log.cleaner_horizon is None or log.cleaner_horizon > now:
                return None
        plan = _plan(log, segments, end, now)
        try:
            cleaned: _Cleaned = await run(_clean, plan, log.persistence)
        except OSError as exc:
            if log.closed:
                return None
            logger.error("cleaning %s-%d failed: %s", log.topic, log.partition, exc)
            return None
        swapped_all = True
        for old, new in cleaned.groups:
            swapped_all = log.replace_segments(old, new) and swapped_all
        if not swapped_all:
            return None
        log.save_cleaner_checkpoint(end)
        log.cleaner_horizon = cleaned.horizon
        stats = cleaned.stats
        logger.info(
            "cleaned %s-%d up to offset %d: %d segments of %d bytes -> %d of %d bytes, %d records removed",
            log.topic, log.partition, end, stats.segments_before, stats.bytes_before, stats.segments_after,
            stats.bytes_after, stats.records_removed,
        )
        return stats
    finally:
        log.cleaning = False


def _plan(log: Log, segments: list[LogSegment], end: int, now: int) -> _Plan:
    aborted: dict[int, list[tuple[int, int]]] = {}
    for segment in log.segments:
        for entry in segment.txn_index.entries:
            aborted.setdefault(entry.producer_id, []).append((entry.first_offset, entry.last_offset))
    producer_last = {
        pid: entry.batches[-1].last_offset for pid, entry in log.producer_state.producers.items() if entry.batches
    }
    segment_bytes = log.segment_bytes
    groups: list[list[LogSegment]] = []
    size = 0
    for segment in segments:
        if groups and size + segment.size <= segment_bytes and log.next_segment_base(segment) - groups[-1][0].base_offset <= INT32_MAX:
            groups[-1].append(segment)
            size += segment.size
        else:
            groups.append([segment])
            size = segment.size
    return _Plan(groups, end, now, int(log.config.get("delete.retention.ms")), aborted, producer_last, log.config)


# --- the worker-thread part -----------------------------------------------------------


def _batches(segment: LogSegment) -> Iterator[tuple[BatchHeader, bytes]]:
    for pos, header in segment.iter_headers(0):
        yield header, segment.store.read(pos, header.size)


def _scan_horizon(segments: list[LogSegment]) -> int:
    horizon = NO_HORIZON
    for segment in segments:
        for _pos, header in segment.iter_headers(0):
            if header.has_delete_horizon:
                horizon = min(horizon, header.base_timestamp)
    return horizon


def _is_aborted(plan: _Plan, header: BatchHeader) -> bool:
    if not header.is_transactional or header.is_control:
        return False
    return any(first <= header.base_offset <= last for first, last in plan.aborted.get(header.producer_id, ()))


def _build_offset_map(plan: _Plan) -> dict[bytes, int]:
    latest: dict[bytes, int] = {}
    for group in plan.groups:
        for segment in group:
            for header, data in _batches(segment):
                if header.is_control or _is_aborted(plan, header):
                    continue
                for record in rb.decode_batch(data).records:
                    if record.key is not None:
                        latest[record.key] = record.offset
    return latest


def _clean(plan: _Plan, persistence: Any) -> _Cleaned:
    latest = _build_offset_map(plan)
    out = _Cleaned()
    seen_txn_data: set[int] = set()  # producers with data of their current transaction seen
    try:
        for group in plan.groups:
            new = persistence.new_cleaned_segment(group[0].base_offset, plan.config)
            out.groups.append((group, new))
            dropped_markers: set[tuple[int, int]] = set()
            for segment in group:
                out.stats.segments_before += 1
                out.stats.bytes_before += segment.size
                for header, data in _batches(segment):
                    kept = _clean_batch(plan, header, data, latest, seen_txn_data, out)
                    if not kept and header.is_control:
                        dropped_markers.add((header.producer_id, header.base_offset))
                    for batch in kept:
                        new.append(BatchHeader.parse(batch), batch)
            for segment in group:
                for entry in segment.txn_index.entries:
                    if (entry.producer_id, entry.last_offset) not in dropped_markers:
                        new.txn_index.append(entry)
            new.on_become_inactive()
            new.sync()
            out.stats.segments_after += 1
            out.stats.bytes_after += new.size
    except BaseException:
        for _old, new in out.groups:
            persistence.discard_cleaned_segment(new)
        raise
    return out


def _clean_batch(
    plan: _Plan,
    header: BatchHeader,
    data: bytes,
    latest: dict[bytes, int],
    seen_txn_data: set[int],
    out: _Cleaned,
) -> list[bytes]:
    """The batches that replace one batch of the range (empty: dropped)."""
    now = plan.now
    horizon = header.base_timestamp if header.has_delete_horizon else None
    if header.is_control:
        ctype, _epoch = read_control_record(data)
        if ctype is None or header.producer_id < 0:
            return [data]
        if header.producer_id in seen_txn_data:
            # Batches of this transaction were in the log at the start of this pass.
            seen_txn_data.discard(header.producer_id)
            return [data]
        if horizon is None:
            horizon = now + plan.delete_retention_ms
            out.horizon = min(out.horizon, horizon)
            return [_rebuild(header, rb.decode_batch(data).records, horizon)]
        if horizon <= now:
            out.stats.batches_removed += 1
            return []
        out.horizon = min(out.horizon, horizon)
        return [data]
    if header.is_transactional and header.producer_id >= 0:
        seen_txn_data.add(header.producer_id)
    if _is_aborted(plan, header):
        out.stats.batches_removed += 1
        out.stats.records_removed += header.records_count
        return []
    last = plan.producer_last.get(header.producer_id)
    keep_whole = header.producer_id >= 0 and last is not None and header.base_offset <= last <= header.last_offset
    records = rb.decode_batch(data).records
    drop_tombstones = horizon is not None and horizon <= now and not keep_whole
    kept = [
        r for r in records
        if keep_whole
        or (
            (r.key is None or r.offset >= latest.get(r.key, -1))
            and not (drop_tombstones and r.value is None)
        )
    ]
    out.stats.records_removed += len(records) - len(kept)
    if not kept:
        out.stats.batches_removed += 1
        return []
    has_tombstone = any(r.value is None for r in kept)
    if has_tombstone:
        if horizon is None:
            horizon = now + plan.delete_retention_ms
        out.horizon = min(out.horizon, horizon)
    if len(kept) == len(records) and (horizon is not None) == header.has_delete_horizon:
        return [data]  # untouched: the original bytes
    runs: list[list[Record]] = [[kept[0]]]
    for record in kept[1:]:
        if record.offset == runs[-1][-1].offset + 1:
            runs[-1].append(record)
        else:
            runs.append([record])
    return [
        _rebuild(header, run, horizon if any(r.value is None for r in run) else None) for run in runs
    ]


def _rebuild(header: BatchHeader, records: list[Record], horizon: int | None) -> bytes:
    """One batch of `records` (consecutive offsets) with the attributes and producer
    fields of `header`; with a delete horizon it becomes the base timestamp (and the
    attribute bit is set) while record timestamps stay what they were."""
    base_offset = records[0].offset
    log_append = header.timestamp_type == rb.TimestampType.LOG_APPEND_TIME
    base_ts = horizon if horizon is not None else records[0].timestamp
    max_ts = header.max_timestamp if log_append else max(r.timestamp for r in records)
    body = b"".join(
        rb._encode_record(r, r.offset - base_offset, 0 if log_append else r.timestamp - base_ts) for r in records
    )
    body = rb.compress(header.compression, body)
    attributes = header.attributes & (rb.COMPRESSION_MASK | rb.TIMESTAMP_TYPE_BIT | rb.TRANSACTIONAL_BIT | rb.CONTROL_BIT)
    if horizon is not None:
        attributes |= rb.DELETE_HORIZON_BIT
    base_sequence = header.base_sequence
    if base_sequence >= 0:
        base_sequence = rb.increment_sequence(base_sequence, base_offset - header.base_offset)
    size = rb.HEADER_SIZE + len(body)
    buf = bytearray(size)
    rb.HEADER.pack_into(
        buf, 0, base_offset, size - rb.LOG_OVERHEAD, header.partition_leader_epoch, rb.CURRENT_MAGIC, 0,
        attributes, len(records) - 1, base_ts, max_ts, header.producer_id, header.producer_epoch, base_sequence,
        len(records),
    )
    buf[rb.HEADER_SIZE :] = body
    rb._U32.pack_into(buf, rb.CRC_OFFSET, rb.batch_crc(buf, 0, size))
    return bytes(buf)


__all__ = ["CleanStats", "clean_log"]
