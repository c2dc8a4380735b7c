"""A share partition (Kafka's `SharePartition`): the in-flight window of one topic partition
for one share group, from the share-partition start offset (SPSO) to its end offset (SPEO).

Each offset of the window is AVAILABLE, ACQUIRED by one member under an acquisition lock,
ACKNOWLEDGED or ARCHIVED (`coordinator/share/record_state.py`). Offsets are kept as runs of
consecutive offsets sharing state, delivery count, member and lock; a run is split where an
acknowledgement covers part of it, as Kafka splits an in-flight batch into offset states.
Offsets the log does not hold (between fetched batches) are simply not in any run.

Sans-I/O: the caller reads the log from `next_fetch_offset` and hands the fetched batches'
offset ranges to `acquire`; locks time out on the injected clock (`storage/clock.py`)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum

from coordinator.share.config import SharePartitionConfig
from coordinator.share.record_state import AcknowledgeType, RecordState, transition
from protocol.errors import ErrorCode
from storage.clock import Clock, Timer


class AcquireMode(Enum):
    """ShareFetch v2 `ShareAcquireMode` (KIP-1206)."""

    # Whole fetched batches: MaxRecords may be exceeded to end on a batch boundary.
    BATCH_OPTIMIZED = 0
    # Never more than MaxRecords records.
    RECORD_LIMIT = 1


@dataclass(frozen=True)
class AcquiredRecords:
    """One ShareFetch `AcquiredRecords` entry."""

    first_offset: int
    last_offset: int
    delivery_count: int


@dataclass(frozen=True)
class Acknowledgement:
    """One `AcknowledgementBatch`: a single type for the whole range, or one per offset."""

    first_offset: int
    last_offset: int
    types: tuple[AcknowledgeType, ...]

    def type_at(self, offset: int) -> AcknowledgeType:
        return self.types[0] if len(self.types) == 1 else self.types[offset - self.first_offset]


class ShareAcknowledgeError(Exception):
    """The whole acknowledgement was refused and nothing changed."""

    def __init__(self, error_code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.error_code = error_code


@dataclass(frozen=True)
class PersistedBatch:
    """A run as `__share_group_state` keeps it (ShareSnapshot/ShareUpdate `StateBatches`)."""

    first_offset: int
    last_offset: int
    state: RecordState
    delivery_count: int


@dataclass
class ShareStats:
    acquired_records: int = 0
    redelivered_records: int = 0
    acknowledged_records: int = 0
    archived_records: int = 0
    lock_timeouts: int = 0


class _Lock:
    """One acquisition lock: the records one `acquire` (or one renewal) gave a member."""

    __slots__ = ("armed", "deadline_ms", "id", "timer")

    def __init__(self, lock_id: int, deadline_ms: int) -> None:
        self.id = lock_id
        self.deadline_ms = deadline_ms
        self.timer: Timer | None = None
        # False once its timer is cancelled (a rollback re-arms it).
        self.armed = True

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.armed = False


_Undo = tuple[RecordState, int, "str | None", "_Lock | None"]


@dataclass
class _Run:
    first: int
    last: int
    state: RecordState
    delivery_count: int
    member_id: str | None = None
    lock: _Lock | None = field(default=None, repr=False)
    # (state, delivery count, member, lock) before a change whose write is under way; None
    # when the run holds no such change (Kafka's `InFlightState.hasOngoingStateTransition`).
    undo: _Undo | None = field(default=None, repr=False)

    @property
    def count(self) -> int:
        return self.last - self.first + 1

    def note(self) -> None:
        if self.undo is None:
            self.undo = (self.state, self.delivery_count, self.member_id, self.lock)


class SharePartition:
    def __init__(
        self,
        clock: Clock,
        start_offset: int,
        config: SharePartitionConfig | None = None,
        *,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self._clock = clock
        self.config = config or SharePartitionConfig()
        self._start = start_offset
        self._runs: list[_Run] = []
        # The log start offset: nothing below it is delivered again.
        self._floor = start_offset
        # Offsets below it were archived by a log start offset that passed them
        # (`update_log_start_offset`): their acknowledgement is answered as done. Not the
        # start offset the share partition began at: nothing below that was acquired here.
        self._archived_below = 0
        self._lock_ids = itertools.count(1)
        # Called after records became available again by lock timeout, so that a waiting
        # ShareFetch can be completed.
        self.on_change = on_change
        self.stats = ShareStats()
        # Average bytes per record of the last log read, which sizes the next (the broker's).
        self.record_bytes_hint = 0
        # Between `begin_change` and `changes_applied`: the runs changed keep what they were.
        self._recording = False
        self._stats_delta: tuple[int, ...] = ()

    @classmethod
    def restored(
        cls,
        clock: Clock,
        start_offset: int,
        batches: Sequence[PersistedBatch],
        config: SharePartitionConfig | None = None,
    ) -> SharePartition:
        """The partition as durable state left it: nothing is acquired after a restart."""
        sp = cls(clock, start_offset, config)
        for b in sorted(batches, key=lambda b: b.first_offset):
            if b.last_offset < start_offset or b.state is RecordState.ACQUIRED:
                raise ValueError(f"cannot restore {b} at start offset {start_offset}")
            first = max(b.first_offset, start_offset)
            if first < sp._next_new_offset():
                raise ValueError(f"overlapping persisted batches at {b.first_offset}")
            if first > sp._next_new_offset():
                # Offsets with no stored state were never delivered.
                sp._runs.append(_Run(sp._next_new_offset(), first - 1, RecordState.AVAILABLE, 0))
            state = b.state
            if state is RecordState.AVAILABLE and b.delivery_count >= sp.config.delivery_count_limit:
                # No more deliveries allowed (state written by an older odradek, which
                # counted an acquisition in flight, or a limit lowered since).
                state = RecordState.ARCHIVED
            sp._runs.append(_Run(first, b.last_offset, state, b.delivery_count))
        sp._advance_start()
        return sp

    # -- the window ---------------------------------------------------------------------
    @property
    def start_offset(self) -> int:
        return self._start

    @property
    def end_offset(self) -> int:
        """The last offset in flight; equal to the start offset while nothing is."""
        return self._runs[-1].last if self._runs else self._start

    @property
    def in_flight_count(self) -> int:
        return self._runs[-1].last - self._start + 1 if self._runs else 0

    @property
    def next_fetch_offset(self) -> int:
        """Where the next log read should begin: the first available offset in flight, else
        the first offset past the window."""
        for run in self._runs:
            if run.state is RecordState.AVAILABLE and run.undo is None:
                return run.first
        return self._next_new_offset()

    def can_acquire(self) -> bool:
        """Kafka's `canAcquireRecords`: records in the window are available, or the window
        has room for new ones."""
        if any(r.state is RecordState.AVAILABLE and r.undo is None for r in self._runs):
            return True
        return self.in_flight_count < self.config.max_in_flight_records

    def state_of(self, offset: int) -> tuple[RecordState, int] | None:
        """(state, delivery count) of an offset in flight; None outside the runs."""
        run = self._run_at(offset)
        return (run.state, run.delivery_count) if run else None

    def acquired_by(self, offset: int) -> str | None:
        run = self._run_at(offset)
        return run.member_id if run else None

    def lock_deadline_ms(self, offset: int) -> int | None:
        run = self._run_at(offset)
        return run.lock.deadline_ms if run and run.lock else None

    def snapshot(self) -> tuple[int, list[PersistedBatch]]:
        """(start offset, batches) to persist. An acquisition is not persisted (Kafka's
        `SharePartition` writes on acknowledgement, release and lock timeout only): an
        acquired record is stored as it was before it was acquired, available with the
        delivery count it had, so a restart delivers it again at that count. Available
        records never delivered are left out: a restart treats offsets without state so.
        Finished runs at the head are left out and the start offset moved past them, as
        `_advance_start` moves it once a change under way is durable."""
        out: list[PersistedBatch] = []
        start, head = self._start, 0
        while head < len(self._runs) and self._runs[head].state.is_terminal:
            start = self._runs[head].last + 1
            head += 1
        if head == len(self._runs):
            start = max(start, self._floor)
        for r in self._runs[head:]:
            state, count = r.state, r.delivery_count
            if state is RecordState.ACQUIRED:
                state, count = RecordState.AVAILABLE, count - 1
            if state is RecordState.AVAILABLE and count == 0:
                continue
            prev = out[-1] if out else None
            if (
                prev is not None
                and prev.last_offset + 1 == r.first
                and prev.state is state
                and prev.delivery_count == count
            ):
                out[-1] = PersistedBatch(prev.first_offset, r.last, state, count)
            else:
                out.append(PersistedBatch(r.first, r.last, state, count))
        return start, out

    # -- a change and its write -------------------------------------------------------------
    # The changes of one write (acknowledgements, releases) are applied at once, between
    # `begin_change` and `changes_applied`; while the write is under way the runs they
    # changed keep what they were before (Kafka's `InFlightState` state transition), are not
    # acquired again, and hold the start offset where it is. Acquisitions and lock timeouts
    # of other runs go on meanwhile: `commit_change` or `abort_change` settles only those runs.

    def begin_change(self) -> None:
        self._recording = True
        self._stats_delta = self._stats_tuple()

    def changes_applied(self) -> None:
        self._recording = False
        before, after = self._stats_delta, self._stats_tuple()
        self._stats_delta = tuple(a - b for a, b in zip(after, before, strict=True))

    def commit_change(self) -> None:
        """The write is durable: the changes stand, the start offset moves past them."""
        for run in self._runs:
            run.undo = None
        self._stats_delta = ()
        self._advance_start()

    def abort_change(self) -> None:
        """The write failed: the changed runs are put back as they were; a lock released by
        the change is armed again for what is left of its duration, one it made is cancelled."""
        restored: dict[int, _Lock] = {}
        made: dict[int, _Lock] = {}
        for run in self._runs:
            if run.undo is None:
                continue
            if run.lock is not None:
                made[id(run.lock)] = run.lock
            run.state, run.delivery_count, run.member_id, run.lock = run.undo
            run.undo = None
            if run.lock is not None:
                restored[id(run.lock)] = run.lock
        in_use = {id(r.lock) for r in self._runs if r.lock is not None}
        for key, lock in made.items():
            if key not in in_use:
                lock.cancel()
        for lock in restored.values():
            if not lock.armed:
                self._arm(lock, max(lock.deadline_ms - self._clock.monotonic_ms(), 0))
        if self._stats_delta:
            current = self._stats_tuple()
            self.stats = ShareStats(*(c - d for c, d in zip(current, self._stats_delta, strict=True)))
        self._stats_delta = ()
        self._advance_start()

    def _stats_tuple(self) -> tuple[int, ...]:
        st = self.stats
        return (st.acquired_records, st.redelivered_records, st.acknowledged_records, st.archived_records,
                st.lock_timeouts)

    def _arm(self, lock: _Lock, delay_ms: int) -> None:
        lock.armed = True
        lock.timer = self._clock.call_later(delay_ms, lambda: self._expire(lock))

    # -- acquisition ----------------------------------------------------------------------
    def acquire(
        self,
        member_id: str,
        fetched: Sequence[tuple[int, int]],
        max_records: int,
        mode: AcquireMode = AcquireMode.BATCH_OPTIMIZED,
        *,
        read_until: int | None = None,
        read_from: int | None = None,
    ) -> list[AcquiredRecords]:
        """Acquire for `member_id`, out of the fetched batches' offset ranges (first, last;
        ascending), at most `max_records` records (BATCH_OPTIMIZED: up to the end of the
        batch that reaches the limit), re-acquiring available offsets of the window and
        extending the window with new offsets while it holds fewer than
        `max_in_flight_records`.

        `fetched` is the log read from `next_fetch_offset`, up to `read_until` (exclusive)
        when given: offsets it skips hold nothing to deliver (compacted away; under
        read_committed, aborted transactions' records and control records) and are archived
        so that the window moves past them.

        `read_from` is where that read began (`next_fetch_offset` when it was asked): an
        offset released while the read was under way is below it and is not skipped but
        delivered by a later fetch."""
        budget = max_records
        lock = _Lock(next(self._lock_ids), self._clock.monotonic_ms() + self.config.record_lock_duration_ms)
        taken: list[_Run] = []
        cursor = self.next_fetch_offset if read_from is None else read_from
        stopped = False
        for b_first, b_last in fetched:
            if budget <= 0:
                stopped = True
                break
            b_first = max(b_first, self._start)
            if b_first > b_last:
                continue
            self._skip(cursor, b_first - 1)
            cursor = max(cursor, b_last + 1)
            if self._runs and b_first <= self.end_offset:
                budget = self._reacquire(member_id, lock, b_first, min(b_last, self.end_offset), budget, mode, taken)
            n_first = max(b_first, self._next_new_offset())
            if budget <= 0 or n_first > b_last:
                continue
            room = self.config.max_in_flight_records - self.in_flight_count
            if room <= 0:
                stopped = True
                break
            take = b_last - n_first + 1
            if mode is AcquireMode.RECORD_LIMIT:
                take = min(take, budget, room)
            run = _Run(n_first, n_first + take - 1, RecordState.ACQUIRED, 1, member_id, lock)
            self._runs.append(run)
            taken.append(run)
            budget -= take
        if read_until is not None and not stopped:
            self._skip(cursor, read_until - 1)
        if not taken:
            self._advance_start()
            return []
        self._arm(lock, self.config.record_lock_duration_ms)
        for run in taken:
            self.stats.acquired_records += run.count
            if run.delivery_count > 1:
                self.stats.redelivered_records += run.count
        self._advance_start()
        return _merge(sorted(taken, key=lambda r: r.first))

    def _skip(self, first: int, last: int) -> None:
        """Offsets [first, last] hold no record to deliver: archive the available ones in the
        window, and extend the window past those beyond it with a finished run, so that the
        runs stay contiguous."""
        first = max(first, self._start)
        if first > last:
            return
        if self._runs and first <= self.end_offset:
            for run in self._carve(first, min(last, self.end_offset)):
                if run.state is RecordState.AVAILABLE and run.undo is None:
                    run.state = transition(run.state, RecordState.ARCHIVED)
        tail = max(first, self._next_new_offset())
        if tail <= last:
            self._runs.append(_Run(tail, last, RecordState.ARCHIVED, 0))

    def _reacquire(
        self,
        member_id: str,
        lock: _Lock,
        first: int,
        last: int,
        budget: int,
        mode: AcquireMode,
        taken: list[_Run],
    ) -> int:
        for run in list(self._overlapping(first, last)):
            if budget <= 0:
                break
            if run.state is not RecordState.AVAILABLE or run.undo is not None:
                continue
            lo = max(run.first, first)
            hi = min(run.last, last)
            if mode is AcquireMode.RECORD_LIMIT:
                hi = min(hi, lo + budget - 1)
            for piece in self._carve(lo, hi):
                piece.state = transition(piece.state, RecordState.ACQUIRED)
                piece.delivery_count += 1
                piece.member_id = member_id
                piece.lock = lock
                taken.append(piece)
                budget -= piece.count
        return budget

    # -- acknowledgement ------------------------------------------------------------------
    def acknowledge(self, member_id: str, acks: Sequence[Acknowledgement]) -> None:
        """Apply a member's acknowledgements, all or nothing: INVALID_REQUEST for malformed
        batches, INVALID_RECORD_STATE where an offset is not acquired by this member."""
        prev_last = -1
        for ack in acks:
            if ack.first_offset > ack.last_offset or ack.first_offset <= prev_last:
                raise ShareAcknowledgeError(
                    ErrorCode.INVALID_REQUEST, "acknowledgement batches must be ordered and disjoint"
                )
            if len(ack.types) not in (1, ack.last_offset - ack.first_offset + 1):
                raise ShareAcknowledgeError(ErrorCode.INVALID_REQUEST, "acknowledge types do not match the batch")
            prev_last = ack.last_offset
            first = max(ack.first_offset, self._archived_below)
            if first <= ack.last_offset and not self._held_by(member_id, first, ack.last_offset):
                raise ShareAcknowledgeError(
                    ErrorCode.INVALID_RECORD_STATE,
                    f"offsets {ack.first_offset}-{ack.last_offset} are not acquired by this member",
                )
        touched: set[_Lock] = set()
        renewed: _Lock | None = None
        for ack in acks:
            for first, last, ack_type in _segments(ack):
                # Offsets below the log start offset were archived when it passed them
                # (`update_log_start_offset`): their acknowledgement is answered as done, as
                # Kafka's `SharePartition` skips batches below its start offset.
                first = max(first, self._archived_below)
                if first > last:
                    continue
                for run in self._carve(first, last):
                    if self._recording:
                        run.note()
                    if run.lock is not None:
                        touched.add(run.lock)
                    if ack_type is AcknowledgeType.RENEW:
                        if renewed is None:
                            renewed = self._new_lock()
                        run.lock = renewed
                        continue
                    if ack_type is AcknowledgeType.ACCEPT:
                        run.state = transition(run.state, RecordState.ACKNOWLEDGED)
                        self.stats.acknowledged_records += run.count
                    elif ack_type is AcknowledgeType.RELEASE:
                        self._release(run)
                    else:  # REJECT, GAP
                        run.state = transition(run.state, RecordState.ARCHIVED)
                        self.stats.archived_records += run.count
                    run.member_id = None
                    run.lock = None
        self._drop_unused_locks(touched)
        self._advance_start()

    def release_member(self, member_id: str) -> int:
        """Make available again (or archive, at the delivery limit) everything the member
        holds, as Kafka does when a member leaves or its share session closes. Returns how
        many records were released."""
        touched: set[_Lock] = set()
        released = 0
        for run in self._runs:
            if run.state is RecordState.ACQUIRED and run.member_id == member_id:
                if self._recording:
                    run.note()
                if run.lock is not None:
                    touched.add(run.lock)
                self._release(run)
                run.member_id = None
                run.lock = None
                released += run.count
        self._drop_unused_locks(touched)
        self._advance_start()
        return released

    def update_log_start_offset(self, log_start_offset: int) -> None:
        """Records deleted from the log (retention, DeleteRecords) are archived and the start
        offset moves to the log start offset at once, as Kafka's
        `SharePartition.updateCacheAndOffsets` moves it: acquired records below it are taken
        from their holder (their lock ends, a later acknowledgement of them is answered as
        done, `acknowledge`), so fetching goes on from the log start offset without waiting
        for their locks. The new start offset is written with the next change, as Kafka
        writes it lazily."""
        if log_start_offset <= self._floor:
            return
        self._floor = self._archived_below = log_start_offset
        self._advance_start()

    def _archive_below_floor(self) -> None:
        """Archive the runs below the log start offset, but those whose write is under way
        (`commit_change` / `abort_change` settle them, then this archives them)."""
        last = min(self._floor - 1, self.end_offset)
        touched: set[_Lock] = set()
        for run in self._carve(self._runs[0].first, last):
            if run.undo is not None or run.state.is_terminal:
                continue
            if run.lock is not None:
                touched.add(run.lock)
            run.state = RecordState.ARCHIVED
            run.member_id = None
            run.lock = None
            self.stats.archived_records += run.count
        self._drop_unused_locks(touched)

    # -- internals ------------------------------------------------------------------------
    def _release(self, run: _Run) -> None:
        # The delivery limit is checked when a delivery ends (release or lock timeout), so the
        # last allowed delivery still happens. Below the log start offset nothing comes back.
        if run.delivery_count >= self.config.delivery_count_limit or run.last < self._floor:
            run.state = transition(run.state, RecordState.ARCHIVED)
            self.stats.archived_records += run.count
        else:
            run.state = transition(run.state, RecordState.AVAILABLE)

    def _expire(self, lock: _Lock) -> None:
        lock.armed = False
        expired = 0
        for run in self._runs:
            if run.lock is lock and run.state is RecordState.ACQUIRED:
                self._release(run)
                run.member_id = None
                run.lock = None
                expired += run.count
        if expired:
            self.stats.lock_timeouts += expired
            self._advance_start()
            if self.on_change is not None:
                self.on_change()

    def _new_lock(self) -> _Lock:
        duration = self.config.record_lock_duration_ms
        lock = _Lock(next(self._lock_ids), self._clock.monotonic_ms() + duration)
        self._arm(lock, duration)
        return lock

    def _drop_unused_locks(self, locks: set[_Lock]) -> None:
        in_use = {id(r.lock) for r in self._runs if r.lock is not None}
        for lock in locks:
            if id(lock) not in in_use:
                lock.cancel()

    def _next_new_offset(self) -> int:
        return self._runs[-1].last + 1 if self._runs else self._start

    def _advance_start(self) -> None:
        """Drop the finished runs at the head of the window and move the start offset to the
        first offset still to be delivered. The runs always cover the window without holes."""
        if self._runs and self._runs[0].first < self._floor and not self._recording:
            self._archive_below_floor()
        dropped = 0
        while (
            dropped < len(self._runs)
            and self._runs[dropped].state.is_terminal
            and self._runs[dropped].undo is None
        ):
            self._start = self._runs[dropped].last + 1
            dropped += 1
        if dropped:
            del self._runs[:dropped]
        if not self._runs:
            self._start = max(self._start, self._floor)

    def _run_at(self, offset: int) -> _Run | None:
        i = bisect.bisect_right(self._runs, offset, key=lambda r: r.first) - 1
        if i >= 0 and self._runs[i].last >= offset:
            return self._runs[i]
        return None

    def _overlapping(self, first: int, last: int) -> Iterator[_Run]:
        i = max(bisect.bisect_right(self._runs, first, key=lambda r: r.first) - 1, 0)
        while i < len(self._runs) and self._runs[i].first <= last:
            if self._runs[i].last >= first:
                yield self._runs[i]
            i += 1

    def _split_before(self, offset: int) -> None:
        """Make `offset` the first offset of its run."""
        i = bisect.bisect_right(self._runs, offset, key=lambda r: r.first) - 1
        if i < 0:
            return
        run = self._runs[i]
        if run.first < offset <= run.last:
            tail = _Run(offset, run.last, run.state, run.delivery_count, run.member_id, run.lock, run.undo)
            run.last = offset - 1
            self._runs.insert(i + 1, tail)

    def _carve(self, first: int, last: int) -> list[_Run]:
        """The runs covering exactly [first, last] (splitting at both ends)."""
        self._split_before(first)
        self._split_before(last + 1)
        return list(self._overlapping(first, last))

    def _held_by(self, member_id: str, first: int, last: int) -> bool:
        expected = first
        for run in self._overlapping(first, last):
            if run.first > expected or run.state is not RecordState.ACQUIRED or run.member_id != member_id:
                return False
            expected = run.last + 1
        return expected > last


def _segments(ack: Acknowledgement) -> Iterator[tuple[int, int, AcknowledgeType]]:
    """The batch as (first, last, type) ranges of one type each."""
    if len(ack.types) == 1:
        yield ack.first_offset, ack.last_offset, ack.types[0]
        return
    start = ack.first_offset
    for offset in range(ack.first_offset + 1, ack.last_offset + 2):
        if offset > ack.last_offset or ack.type_at(offset) is not ack.type_at(start):
            yield start, offset - 1, ack.type_at(start)
            start = offset


def _merge(runs: list[_Run]) -> list[AcquiredRecords]:
    out: list[AcquiredRecords] = []
    for r in runs:
        prev = out[-1] if out else None
        if prev is not None and prev.last_offset + 1 == r.first and prev.delivery_count == r.delivery_count:
            out[-1] = AcquiredRecords(prev.first_offset, r.last, r.delivery_count)
        else:
            out.append(AcquiredRecords(r.first, r.last, r.delivery_count))
    return out
