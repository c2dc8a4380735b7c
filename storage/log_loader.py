"""Opening a partition directory: fast path after a clean shutdown, recovery otherwise.

Recovery (no clean-shutdown marker) re-validates every batch from the segment holding
the recovery point on: header, length, CRC and offset order. The first bad batch and
everything after it is cut off (later segments are deleted), indexes are rebuilt, so
the log end offset is restored with no gap and no duplicate offset, and the recovered
segments are fsynced (everything a log holds when it opens is durable, so visible).
Segments before the recovery point were fsynced when the point was written; only their
indexes are checked.

Producer state and the aborted-transaction indexes are rebuilt from the segments by
`rebuild_producer_state`, which every Log runs when it opens (both engines): from the
newest trusted snapshot, replaying the batch headers after it.

Leftovers of an interrupted log-cleaner swap (storage.cleaner) are settled first: a
`.cleaned` file is an unfinished rewrite and is deleted (the old segments are intact); a
`.swap` file is a finished, fsynced rewrite, so the old segments it covers are deleted
and it takes its final name, as Kafka's LogLoader does.
"""

from __future__ import annotations

import bisect
import contextlib
import logging
import os
from dataclasses import dataclass, field

from .files import sync_directory
from .producer_state import ProducerStateManager
from .segment import (
    CLEANED_SUFFIX,
    INDEX_SUFFIX,
    LOG_SUFFIX,
    SWAP_SUFFIX,
    TIME_INDEX_SUFFIX,
    TXN_INDEX_SUFFIX,
    LogSegment,
    segment_name,
)
from .topic_config import TopicConfig

logger = logging.getLogger(__name__)

LOG_START_OFFSET_FILE = "log-start-offset"
CLEANER_CHECKPOINT_FILE = "cleaner-offset-checkpoint"
RECOVERY_POINT_FILE = "recovery-point"
PARTITION_METADATA_FILE = "partition.metadata"


@dataclass(slots=True)
class RecoveryReport:
    recovered_segments: int = 0
    truncated_bytes: int = 0
    deleted_segments: list[int] = field(default_factory=list)
    rebuilt_indexes: list[int] = field(default_factory=list)
    # Base of the first segment re-validated after a crash: producer-state snapshots above
    # it may describe data that never reached disk, so they are not trusted.
    recovery_start: int | None = None


def read_offset_file(directory: str, name: str) -> int | None:
    try:
        with open(os.path.join(directory, name), "rb") as f:
            return int(f.read().decode().strip())
    except (FileNotFoundError, ValueError):
        return None


def _complete_swaps(directory: str, config: TopicConfig, now_ms: int) -> None:
    """Settle an interrupted cleaner swap (see the module docstring)."""
    names = os.listdir(directory)
    for name in names:
        if name.endswith(CLEANED_SUFFIX):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, name))
    swaps = sorted(
        int(name[:20]) for name in names
        if name.endswith(LOG_SUFFIX + SWAP_SUFFIX) and name[:20].isdigit() and len(name) == 20 + len(LOG_SUFFIX + SWAP_SUFFIX)
    )
    for base in swaps:
        swap = LogSegment.open_file(
            directory, base, index_interval_bytes=config.index_interval_bytes,
            index_max_bytes=config.segment_index_bytes, now_ms=now_ms, suffix=SWAP_SUFFIX,
        )
        swap.recover(base, allow_gaps=True)  # it was fsynced whole; this only sets next_offset
        end = swap.next_offset
        swap.close()
        for name in os.listdir(directory):
            stem, ext = os.path.splitext(name)
            if ext in (LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX) and len(stem) == 20 and stem.isdigit():
                old = int(stem)
                if old == base or base < old < end:
                    os.unlink(os.path.join(directory, name))
        stem = os.path.join(directory, segment_name(base))
        for ext in (LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX):
            with contextlib.suppress(FileNotFoundError):
                os.replace(stem + ext + SWAP_SUFFIX, stem + ext)
        logger.warning("completed an interrupted cleaner swap in %s at segment %d", directory, base)
    if swaps:
        sync_directory(directory)


def _segment_bases(directory: str) -> list[int]:
    bases = []
    for name in os.listdir(directory):
        stem, ext = os.path.splitext(name)
        if ext == LOG_SUFFIX and len(stem) == 20 and stem.isdigit():
            bases.append(int(stem))
        elif ext == ".tmp":
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, name))
    bases.sort()
    # Index files without a log file are leftovers of an interrupted deletion.
    have = {f"{b:020d}" for b in bases}
    for name in os.listdir(directory):
        stem, ext = os.path.splitext(name)
        if ext in (INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX) and stem not in have:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, name))
    return bases


def load_segments(
    directory: str,
    config: TopicConfig,
    *,
    clean: bool,
    now_ms: int,
    log_start_offset: int,
) -> tuple[list[LogSegment], RecoveryReport]:
    """Open (and if needed recover) every segment of a partition directory."""
    report = RecoveryReport()
    index_bytes = config.segment_index_bytes
    interval = config.index_interval_bytes
    allow_gaps = config.compact

    def open_segment(base: int) -> LogSegment:
        return LogSegment.open_file(
            directory, base, index_interval_bytes=interval, index_max_bytes=index_bytes, now_ms=now_ms
        )

    _complete_swaps(directory, config, now_ms)
    bases = _segment_bases(directory)
    if not bases:
        # Nothing written yet: the files are made by the first append, as for a new topic.
        segment = LogSegment.open_file(
            directory, log_start_offset, index_interval_bytes=interval, index_max_bytes=index_bytes,
            now_ms=now_ms, lazy=True,
        )
        return [segment], report

    if clean:
        recover_from = len(bases)
    else:
        recovery_point = read_offset_file(directory, RECOVERY_POINT_FILE) or 0
        recover_from = max(0, bisect.bisect_right(bases, recovery_point) - 1)

    if recover_from < len(bases):
        report.recovery_start = bases[recover_from]
    segments: list[LogSegment] = []
    for i, base in enumerate(bases):
        segment = open_segment(base)
        prev_next = segments[-1].next_offset if segments else None
        if prev_next is not None and (base < prev_next or (not allow_gaps and base != prev_next)):
            # A segment that doesn't continue the log: it and everything after goes.
            segment.delete()
            report.deleted_segments.extend(bases[i:])
            for later in bases[i + 1 :]:
                open_segment(later).delete()
            break
        if i >= recover_from:
            report.recovered_segments += 1
            truncated = segment.recover(base, allow_gaps)
        elif segment.load_indexes():
            truncated = 0
        else:
            # A damaged index puts its log in doubt too: the segment is recovered, as Kafka's
            # LogLoader recovers a segment whose sanity check fails, not re-indexed blindly.
            report.rebuilt_indexes.append(base)
            truncated = segment.recover(base, allow_gaps)
        segments.append(segment)
        if truncated:
            report.truncated_bytes += truncated
            logger.warning("truncated %d bytes of corrupt data in %s at segment %d", truncated, directory, base)
            for later in bases[i + 1 :]:
                open_segment(later).delete()
                report.deleted_segments.append(later)
            break
    for segment in segments[:-1]:
        segment.on_become_inactive()  # recovered segments need their final time entry
    # What a crash left past the recovery point may sit in the page cache only (a broker
    # that halted on a failed fsync, then restarted): made durable before the log opens,
    # as the high watermark starts at the log end and consumers may read all of it.
    for segment in segments[recover_from:]:
        segment.sync()
    return segments, report


def rebuild_producer_state(
    state: ProducerStateManager, segments: list[LogSegment], log_end_offset: int, *, max_snapshot_offset: int
) -> int:
    """Rebuild the producer state of a log being opened: the newest valid snapshot at or
    below `max_snapshot_offset` (after a crash only snapshots at or below the recovery
    point are trusted), then the batch headers after it. Transaction-index entries from
    the replayed range are dropped and written again by the replay, so a crash between an
    index write and its flush cannot leave a stale or missing entry. Returns the offset
    the replay started at."""
    start = state.restore_snapshot(segments[0].base_offset, log_end_offset, max_snapshot_offset=max_snapshot_offset)
    for segment in segments:
        segment.txn_index.load()
        segment.txn_index.truncate_from(start)
    for segment in segments:
        if segment.next_offset <= start:
            continue
        found = segment.find_batch(start)
        if found is None:
            continue
        for pos, header in segment.iter_headers(found[0]):
            if header.base_offset < start or header.producer_id < 0:
                continue
            control = segment.store.read(pos, header.size) if header.is_control else None
            aborted = state.replay(header, control)
            if aborted is not None:
                segment.txn_index.append(aborted)
    return start
