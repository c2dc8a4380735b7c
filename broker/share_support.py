"""What the share group handlers share: a share group's effective configs, where a new share
partition starts, acknowledgement batches off the wire, and which offsets of a log read hold
records to deliver."""

from __future__ import annotations

import uuid
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from broker.features import SHARE_VERSION
from broker.group_config import GROUP_CONFIG_DEFS
from coordinator.share.config import SharePartitionConfig
from coordinator.share.partition import Acknowledgement, AcquiredRecords
from coordinator.share.record_state import AcknowledgeType
from coordinator.share.records import SharePartitionKey
from protocol import record_batch as rb
from protocol.codec import RecordsData
from protocol.errors import ErrorCode
from storage.engine import READ_COMMITTED, READ_UNCOMMITTED, AbortedTransaction

if TYPE_CHECKING:
    from broker.context import RequestContext
    from coordinator.share.partition import SharePartition

EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1


def share_groups_enabled(ctx: RequestContext) -> bool:
    """Kafka serves share groups only while `share.version` is finalized at 1 or more."""
    return ctx.features.level(SHARE_VERSION) >= 1


@dataclass(frozen=True)
class ShareGroupSettings:
    partition: SharePartitionConfig
    auto_offset_reset: str
    isolation_level: int


def _group_value(ctx: RequestContext, group_id: str, name: str) -> str:
    overrides = ctx.dynamic_configs.groups.get(group_id, {})
    if name in overrides:
        return overrides[name]
    d = GROUP_CONFIG_DEFS[name]
    if d.broker_synonym is not None:
        return str(ctx.config.get(d.broker_synonym))
    return d.default


def group_settings(ctx: RequestContext, group_id: str) -> ShareGroupSettings:
    """The group's own configs (IncrementalAlterConfigs on the GROUP resource), else the
    broker's `group.share.*` settings."""
    return ShareGroupSettings(
        SharePartitionConfig(
            record_lock_duration_ms=int(_group_value(ctx, group_id, "share.record.lock.duration.ms")),
            delivery_count_limit=int(_group_value(ctx, group_id, "share.delivery.count.limit")),
            max_in_flight_records=int(_group_value(ctx, group_id, "share.partition.max.record.locks")),
        ),
        _group_value(ctx, group_id, "share.auto.offset.reset"),
        READ_COMMITTED if _group_value(ctx, group_id, "share.isolation.level") == "read_committed"
        else READ_UNCOMMITTED,
    )


async def initial_start_offset(ctx: RequestContext, topic: str, partition: int, reset: str) -> int:
    """share.auto.offset.reset: a new share partition starts at the log end ("latest") or
    the log start ("earliest")."""
    ts = EARLIEST_TIMESTAMP if reset == "earliest" else LATEST_TIMESTAMP
    found, _ = await ctx.data_plane.offset_for_timestamp(topic, partition, ts, None)
    return 0 if found is None else found.offset


def leadership_error(ctx: RequestContext, topic_id: uuid.UUID, partition: int) -> ErrorCode | None:
    """Cluster mode: NOT_LEADER_OR_FOLLOWER (or the like) when this broker does not lead the
    partition: a share partition lives on its leader alone (Kafka's SharePartitionManager),
    so that no two brokers deliver its records. None when it does (always without a cluster)."""
    error = ctx.cluster.leader_epoch_error(topic_id, partition, -1)
    return None if error is None or error == ErrorCode.NONE else error


def leader_of(ctx: RequestContext, topic_id: uuid.UUID, partition: int, error: int) -> tuple[int, int]:
    """The CurrentLeader a share response names: this broker when it served the partition,
    the partition's leader when it answered NOT_LEADER_OR_FOLLOWER, else none."""
    if error == ErrorCode.NONE:
        return ctx.cluster.node_id, 0
    if error in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.FENCED_LEADER_EPOCH):
        return ctx.cluster.partition_leader(topic_id, partition)
    return -1, 0


def share_key(group_id: str, topic_id: uuid.UUID, partition: int) -> SharePartitionKey:
    return SharePartitionKey(group_id, topic_id, partition)


class InvalidAcknowledgementError(ValueError):
    pass


def acknowledgements(batches: Sequence[tuple[int, int, Sequence[int]]], renew_allowed: bool) -> list[Acknowledgement]:
    out = []
    for first, last, types in batches:
        parsed = []
        for value in types:
            t = AcknowledgeType.from_wire(value)
            if t is None or (t is AcknowledgeType.RENEW and not renew_allowed):
                raise InvalidAcknowledgementError(f"invalid acknowledge type {value}")
            parsed.append(t)
        if not parsed:
            raise InvalidAcknowledgementError("acknowledge types are empty")
        out.append(Acknowledgement(first, last, tuple(parsed)))
    return out


@dataclass
class LogRead:
    """One log read of a share partition: the offset ranges holding records to deliver, the
    offset the read covered up to, and the batches by offset range for the response."""

    ranges: list[tuple[int, int]]
    read_until: int | None
    batches: list[tuple[int, int, memoryview]]
    # Where each of `batches` starts in `data`, the read.
    positions: list[int] = field(default_factory=list)
    data: memoryview = field(default_factory=lambda: memoryview(b""))

    @property
    def record_count(self) -> int:
        return sum(last - first + 1 for first, last in self.ranges)

    def after(self, offset: int) -> LogRead:
        """The same read from `offset` on: its batches that hold `offset` or later ones (a
        read's rest, for the next acquisition, `ReadAhead`; a batch split by a RECORD_LIMIT
        acquisition stays, as a fresh read from `offset` would return it)."""
        keep = [i for i, (_, last, _) in enumerate(self.batches) if last >= offset]
        return LogRead(
            [self.ranges[i] for i in keep],
            self.read_until,
            [self.batches[i] for i in keep],
            [self.positions[i] for i in keep],
            self.data,
        )


def deliverable(
    records: bytes | memoryview,
    isolation_level: int,
    aborted: Sequence[AbortedTransaction] | None,
) -> LogRead:
    """Data batches of the read; under read_committed, without aborted transactions' batches
    (as Kafka's consumer drops them from a Fetch); control batches never hold records."""
    # Batches are sliced out of the read without copying it.
    buf = memoryview(records)
    pending = sorted(aborted or (), key=lambda a: a.first_offset)
    active: set[int] = set()
    ranges: list[tuple[int, int]] = []
    batches: list[tuple[int, int, memoryview]] = []
    positions: list[int] = []
    end: int | None = None
    for pos, header in rb.iter_batches(buf):
        end = header.next_offset
        while pending and pending[0].first_offset <= header.last_offset:
            active.add(pending.pop(0).producer_id)
        if header.is_control:
            active.discard(header.producer_id)
            continue
        if (
            isolation_level == READ_COMMITTED
            and header.is_transactional
            and header.producer_id in active
        ):
            continue
        ranges.append((header.base_offset, header.last_offset))
        batches.append((header.base_offset, header.last_offset, buf[pos:pos + header.size]))
        positions.append(pos)
    return LogRead(ranges, end, batches, positions, buf)


def records_for(read: LogRead, acquired: Sequence[AcquiredRecords]) -> RecordsData:
    """The read's batches that hold an acquired offset (the client keeps only the acquired
    ones, by the AcquiredRecords ranges). Batches next to each other in the read (the usual
    case: every batch read is acquired) are answered as one slice of it, not copied."""
    chosen = [
        i for i, (first, last, _) in enumerate(read.batches)
        if any(a.first_offset <= last and a.last_offset >= first for a in acquired)
    ]
    if not chosen:
        return b""
    start = read.positions[chosen[0]]
    end = start
    for i in chosen:
        if read.positions[i] != end:
            return b"".join(read.batches[i][2] for i in chosen)
        end += len(read.batches[i][2])
    return read.data[start:end]


# The most the rests of all share partitions hold together (`ReadAhead`).
READ_AHEAD_TOTAL_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class _Ahead:
    start: int
    isolation_level: int
    read: LogRead


class ReadAhead:
    """What a share partition's last log read held past the records it acquired: the next
    acquisition starts there (the window's next offset) and takes it instead of reading the
    same batches again, as long as nothing moved the next fetch offset meanwhile (a release,
    a lock timeout, another acquisition). Kept once: the first acquisition that looks takes
    it or drops it, so that a newer log start offset or state is seen at the next read.
    The batches lie below the high watermark (or the last stable offset), which never
    change. Keyed weakly by the share partition: gone with it (a leader change drops the
    share partition, `ShareCoordinator.forget_partition`, so a log truncated meanwhile is
    read again). At most `total_bytes` of reads are held for all share partitions together
    (each rest keeps its whole read): past that the oldest rests give way, so share groups
    that stop fetching do not hold a read per partition for ever."""

    def __init__(self, total_bytes: int = READ_AHEAD_TOTAL_BYTES) -> None:
        # In the order kept (a dict's): the oldest first.
        self._by_partition: weakref.WeakKeyDictionary[SharePartition, _Ahead] = weakref.WeakKeyDictionary()
        self._total_bytes = total_bytes
        # What the rests hold, at most: those gone with their share partition still count
        # until the next recount.
        self._held = 0

    def _drop(self, sp: SharePartition) -> _Ahead | None:
        ahead = self._by_partition.pop(sp, None)
        if ahead is not None:
            self._held -= len(ahead.read.data)
        return ahead

    def take(self, sp: SharePartition, isolation_level: int, budget: int, log_start_offset: int) -> LogRead | None:
        """The read's rest when it starts at the partition's next fetch offset and holds
        `budget` records or more (else None: a fresh read serves the budget whole). Not when
        the log's start offset (`log_start_offset`, as the log has it now) passed the share
        partition's start: records were deleted (DeleteRecords, retention) since the read,
        which a fresh read archives, as Kafka's share partition does on its next fetch."""
        ahead = self._drop(sp)
        if (
            ahead is None
            or ahead.isolation_level != isolation_level
            or ahead.start != sp.next_fetch_offset
            or ahead.read.record_count < budget
            or log_start_offset > sp.start_offset
        ):
            return None
        return ahead.read

    def keep(self, sp: SharePartition, isolation_level: int, read: LogRead) -> None:
        """After an acquisition out of `read`: its batches past what was acquired (not when
        the read is larger than READ_AHEAD_MAX_BYTES: the rest holds on to all of it)."""
        self._drop(sp)
        start = sp.next_fetch_offset
        size = len(read.data)
        if size > READ_AHEAD_MAX_BYTES or size > self._total_bytes:
            return
        rest = read.after(start)
        if not rest.batches:
            return
        if self._held + size > self._total_bytes:
            self._held = sum(len(a.read.data) for a in self._by_partition.values())
            for oldest in list(self._by_partition.keys()):
                if self._held + size <= self._total_bytes:
                    break
                self._drop(oldest)
        self._by_partition[sp] = _Ahead(start, isolation_level, rest)
        self._held += size


# The first read of a share partition sizes itself for records of this size; later reads
# for the records of the reads before (`read_bytes`).
FIRST_READ_RECORD_BYTES = 1024
# Never less than this is read: small records come in batches of many.
MIN_READ_BYTES = 64 * 1024
# A read covers this many times the budget's bytes: with batches of a quarter of the budget
# or so, two acquisitions out of one read (`ReadAhead`)...
READ_RECORDS_FACTOR = 3
# ...as long as it is no larger than this, the most a share partition's rest holds on to;
# a larger read covers twice the budget's bytes, and its rest is not kept.
READ_AHEAD_MAX_BYTES = 1024 * 1024


def read_bytes(sp: SharePartition, budget: int, max_bytes: int) -> int:
    """How much of the log one acquisition reads: about what `budget` records take (three
    times the average size seen: whole batches are acquired, and what is left over serves
    the next acquisition, `ReadAhead`; twice past READ_AHEAD_MAX_BYTES), within the
    request's MaxBytes. Kafka's broker reads MaxBytes,
    which costs it nothing (zero-copy file reads); a broker in Python copies and parses what
    it reads, and reading the whole log behind a window that takes a few thousand records
    made each ShareFetch cost as much as the log is long."""
    per_record = sp.record_bytes_hint or FIRST_READ_RECORD_BYTES
    want = READ_RECORDS_FACTOR * budget * per_record
    if want > READ_AHEAD_MAX_BYTES:
        want = 2 * budget * per_record
    return max(1, min(max_bytes, max(MIN_READ_BYTES, want)))


def learn_record_size(sp: SharePartition, read: LogRead) -> None:
    records = sum(last - first + 1 for first, last in read.ranges)
    if records:
        size = sum(len(data) for _, _, data in read.batches)
        sp.record_bytes_hint = max(1, size // records)


def window_end(sp: SharePartition) -> int:
    """The first offset past the in-flight window: where new records come from."""
    return sp.end_offset + 1 if sp.in_flight_count else sp.start_offset
