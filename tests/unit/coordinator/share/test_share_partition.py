"""The share partition's in-flight window: acquisition, acknowledgement, redelivery after
release or lock timeout, archiving at the delivery limit, the window's movement. Locks run
on a ManualClock: timeouts are tested by advancing it, never by sleeping."""

from __future__ import annotations

import pytest

from coordinator.share.config import SharePartitionConfig
from coordinator.share.partition import (
    Acknowledgement,
    AcquiredRecords,
    AcquireMode,
    PersistedBatch,
    ShareAcknowledgeError,
    SharePartition,
)
from coordinator.share.record_state import AcknowledgeType, RecordState
from protocol.errors import ErrorCode
from storage.clock import ManualClock

A = AcknowledgeType
S = RecordState
LOCK_MS = 30_000


def make(start: int = 0, **config: int) -> tuple[ManualClock, SharePartition]:
    clock = ManualClock()
    return clock, SharePartition(clock, start, SharePartitionConfig(**config))


def ack(first: int, last: int, *types: AcknowledgeType) -> Acknowledgement:
    return Acknowledgement(first, last, tuple(types))


def states(sp: SharePartition, first: int, last: int) -> list[tuple[RecordState, int] | None]:
    return [sp.state_of(o) for o in range(first, last + 1)]


# -- acquisition --------------------------------------------------------------------------
def test_fresh_partition_window() -> None:
    _, sp = make(start=100)
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset, sp.in_flight_count) == (100, 100, 100, 0)
    assert sp.can_acquire()


def test_acquire_new_records_extends_the_window() -> None:
    _, sp = make()
    got = sp.acquire("m1", [(0, 4), (5, 9)], max_records=500)
    assert got == [AcquiredRecords(0, 9, 1)]
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset, sp.in_flight_count) == (0, 9, 10, 10)
    assert states(sp, 0, 9) == [(S.ACQUIRED, 1)] * 10
    assert sp.acquired_by(3) == "m1"
    assert sp.state_of(10) is None


def test_fetched_offsets_below_the_start_are_ignored() -> None:
    _, sp = make(start=5)
    assert sp.acquire("m1", [(0, 7)], max_records=500) == [AcquiredRecords(5, 7, 1)]
    assert sp.state_of(4) is None


def test_batch_optimized_takes_whole_batches() -> None:
    _, sp = make()
    # The limit is reached inside the second batch: that batch is still taken whole.
    got = sp.acquire("m1", [(0, 4), (5, 9), (10, 14)], max_records=7)
    assert got == [AcquiredRecords(0, 9, 1)]
    assert sp.next_fetch_offset == 10


def test_record_limit_never_exceeds_max_records() -> None:
    _, sp = make()
    got = sp.acquire("m1", [(0, 4), (5, 9)], max_records=7, mode=AcquireMode.RECORD_LIMIT)
    assert got == [AcquiredRecords(0, 6, 1)]
    assert sp.next_fetch_offset == 7
    assert sp.acquire("m2", [(5, 9)], max_records=7, mode=AcquireMode.RECORD_LIMIT) == [AcquiredRecords(7, 9, 1)]
    assert sp.acquired_by(6) == "m1"
    assert sp.acquired_by(7) == "m2"


def test_a_second_member_gets_the_next_records() -> None:
    _, sp = make()
    assert sp.acquire("m1", [(0, 4)], max_records=5) == [AcquiredRecords(0, 4, 1)]
    # The log is read from next_fetch_offset; the batch holding it may begin earlier.
    assert sp.next_fetch_offset == 5
    assert sp.acquire("m2", [(0, 4), (5, 9)], max_records=5) == [AcquiredRecords(5, 9, 1)]
    assert [sp.acquired_by(o) for o in (4, 5)] == ["m1", "m2"]


def test_nothing_to_acquire_when_all_in_flight_are_held() -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=5)
    assert sp.acquire("m2", [(0, 4)], max_records=5) == []


def test_max_in_flight_records_bounds_the_window() -> None:
    _, sp = make(max_in_flight_records=100)
    got = sp.acquire("m1", [(0, 149)], max_records=500, mode=AcquireMode.RECORD_LIMIT)
    assert got == [AcquiredRecords(0, 99, 1)]
    assert not sp.can_acquire()
    assert sp.acquire("m2", [(100, 149)], max_records=500) == []
    # Acknowledging the head moves the window: room again.
    sp.acknowledge("m1", [ack(0, 9, A.ACCEPT)])
    assert sp.can_acquire()
    assert sp.acquire("m2", [(100, 149)], max_records=500, mode=AcquireMode.RECORD_LIMIT) == [
        AcquiredRecords(100, 109, 1)
    ]
    assert sp.in_flight_count == 100


def test_batch_optimized_may_overshoot_max_in_flight_to_a_batch_end() -> None:
    _, sp = make(max_in_flight_records=100)
    assert sp.acquire("m1", [(0, 89), (90, 119)], max_records=500) == [AcquiredRecords(0, 119, 1)]
    assert sp.in_flight_count == 120
    assert not sp.can_acquire()


# -- acknowledgement ----------------------------------------------------------------------
def test_accept_all_moves_the_window_past_them() -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 9)], max_records=500)
    sp.acknowledge("m1", [ack(0, 9, A.ACCEPT)])
    assert (sp.start_offset, sp.end_offset, sp.in_flight_count, sp.next_fetch_offset) == (10, 10, 0, 10)
    assert sp.state_of(5) is None
    assert sp.stats.acknowledged_records == 10


def test_window_start_stops_at_the_first_unfinished_record() -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 9)], max_records=500)
    sp.acknowledge("m1", [ack(0, 2, A.ACCEPT), ack(4, 6, A.ACCEPT)])
    assert (sp.start_offset, sp.end_offset) == (3, 9)
    assert states(sp, 3, 7) == [(S.ACQUIRED, 1), (S.ACKNOWLEDGED, 1), (S.ACKNOWLEDGED, 1), (S.ACKNOWLEDGED, 1),
                                (S.ACQUIRED, 1)]
    sp.acknowledge("m1", [ack(3, 3, A.REJECT)])
    assert sp.start_offset == 7
    sp.acknowledge("m1", [ack(7, 9, A.ACCEPT)])
    assert (sp.start_offset, sp.end_offset, sp.in_flight_count) == (10, 10, 0)


def test_per_offset_types() -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=500)
    sp.acknowledge("m1", [ack(0, 4, A.ACCEPT, A.RELEASE, A.REJECT, A.GAP, A.RELEASE)])
    assert states(sp, 1, 4) == [(S.AVAILABLE, 1), (S.ARCHIVED, 1), (S.ARCHIVED, 1), (S.AVAILABLE, 1)]
    assert sp.start_offset == 1
    assert sp.next_fetch_offset == 1


def test_release_redelivers_with_a_higher_delivery_count() -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=500)
    sp.acknowledge("m1", [ack(2, 3, A.RELEASE)])
    assert sp.next_fetch_offset == 2
    got = sp.acquire("m2", [(0, 4), (5, 6)], max_records=500)
    assert got == [AcquiredRecords(2, 3, 2), AcquiredRecords(5, 6, 1)]
    assert sp.stats.redelivered_records == 2
    assert [sp.acquired_by(o) for o in range(7)] == ["m1", "m1", "m2", "m2", "m1", "m2", "m2"]


def test_a_record_released_while_a_read_was_under_way_is_not_skipped() -> None:
    """m2's log read began at 5 (nothing was available below); m1 released 2 before m2's
    acquisition: 2 stays available for the next fetch, not archived as a gap of the read."""
    _, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=500)
    read_from = sp.next_fetch_offset
    sp.acknowledge("m1", [ack(2, 2, A.RELEASE)])
    got = sp.acquire("m2", [(5, 6)], max_records=500, read_from=read_from, read_until=7)
    assert got == [AcquiredRecords(5, 6, 1)]
    assert sp.state_of(2) == (S.AVAILABLE, 1)
    assert sp.next_fetch_offset == 2
    assert sp.acquire("m2", [(0, 4), (5, 6)], max_records=500) == [AcquiredRecords(2, 2, 2)]


def test_reject_is_never_delivered_again() -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 2)], max_records=500)
    sp.acknowledge("m1", [ack(1, 1, A.REJECT)])
    sp.acknowledge("m1", [ack(0, 0, A.RELEASE), ack(2, 2, A.RELEASE)])
    assert sp.acquire("m1", [(0, 2)], max_records=500) == [AcquiredRecords(0, 0, 2), AcquiredRecords(2, 2, 2)]
    assert sp.state_of(1) == (S.ARCHIVED, 1)


def test_acknowledging_records_of_another_member_is_refused_and_changes_nothing() -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=5)
    sp.acquire("m2", [(5, 9)], max_records=5)
    with pytest.raises(ShareAcknowledgeError) as info:
        sp.acknowledge("m1", [ack(0, 1, A.ACCEPT), ack(4, 5, A.ACCEPT)])
    assert info.value.error_code is ErrorCode.INVALID_RECORD_STATE
    assert states(sp, 0, 1) == [(S.ACQUIRED, 1)] * 2
    assert sp.start_offset == 0


@pytest.mark.parametrize(
    ("acks", "code"),
    [
        ([ack(3, 2, A.ACCEPT)], ErrorCode.INVALID_REQUEST),
        ([ack(0, 2, A.ACCEPT), ack(2, 3, A.ACCEPT)], ErrorCode.INVALID_REQUEST),
        ([ack(2, 3, A.ACCEPT), ack(0, 1, A.ACCEPT)], ErrorCode.INVALID_REQUEST),
        ([ack(0, 2, A.ACCEPT, A.ACCEPT)], ErrorCode.INVALID_REQUEST),
        ([ack(3, 6, A.ACCEPT)], ErrorCode.INVALID_RECORD_STATE),
        ([ack(20, 20, A.ACCEPT)], ErrorCode.INVALID_RECORD_STATE),
    ],
)
def test_bad_acknowledgements(acks: list[Acknowledgement], code: ErrorCode) -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=5)
    with pytest.raises(ShareAcknowledgeError) as info:
        sp.acknowledge("m1", acks)
    assert info.value.error_code is code
    assert states(sp, 0, 4) == [(S.ACQUIRED, 1)] * 5


def test_acknowledging_twice_is_refused() -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=5)
    sp.acknowledge("m1", [ack(1, 1, A.ACCEPT)])
    with pytest.raises(ShareAcknowledgeError) as info:
        sp.acknowledge("m1", [ack(1, 1, A.ACCEPT)])
    assert info.value.error_code is ErrorCode.INVALID_RECORD_STATE


# -- locks --------------------------------------------------------------------------------
def test_lock_timeout_makes_records_available_again() -> None:
    clock, sp = make()
    changes: list[int] = []
    sp = SharePartition(clock, 0, SharePartitionConfig(), on_change=lambda: changes.append(sp.next_fetch_offset))
    sp.acquire("m1", [(0, 4)], max_records=500)
    assert sp.lock_deadline_ms(0) == clock.monotonic_ms() + LOCK_MS
    clock.advance(LOCK_MS - 1)
    assert states(sp, 0, 4) == [(S.ACQUIRED, 1)] * 5
    assert changes == []
    clock.advance(1)
    assert states(sp, 0, 4) == [(S.AVAILABLE, 1)] * 5
    assert changes == [0]
    assert sp.stats.lock_timeouts == 5
    # The late acknowledgement of the old holder is refused; another member gets them.
    with pytest.raises(ShareAcknowledgeError):
        sp.acknowledge("m1", [ack(0, 4, A.ACCEPT)])
    assert sp.acquire("m2", [(0, 4)], max_records=500) == [AcquiredRecords(0, 4, 2)]


def test_acknowledged_records_do_not_time_out() -> None:
    clock, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=500)
    sp.acknowledge("m1", [ack(0, 1, A.ACCEPT)])
    clock.advance(LOCK_MS)
    assert sp.start_offset == 2
    assert states(sp, 2, 4) == [(S.AVAILABLE, 1)] * 3


def test_each_acquisition_has_its_own_lock() -> None:
    clock, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=500)
    clock.advance(10_000)
    sp.acquire("m2", [(5, 9)], max_records=500)
    clock.advance(LOCK_MS - 10_000)
    assert states(sp, 0, 9) == [(S.AVAILABLE, 1)] * 5 + [(S.ACQUIRED, 1)] * 5
    clock.advance(10_000)
    assert states(sp, 5, 9) == [(S.AVAILABLE, 1)] * 5


def test_fully_acknowledged_lock_is_cancelled() -> None:
    clock, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=500)
    sp.acknowledge("m1", [ack(0, 4, A.ACCEPT)])
    assert clock.next_deadline_ms() is None


def test_renew_extends_the_lock_of_the_renewed_records_only() -> None:
    clock, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=500)
    clock.advance(20_000)
    sp.acknowledge("m1", [ack(0, 1, A.RENEW)])
    assert sp.lock_deadline_ms(0) == clock.monotonic_ms() + LOCK_MS
    clock.advance(10_000)
    assert states(sp, 0, 4) == [(S.ACQUIRED, 1)] * 2 + [(S.AVAILABLE, 1)] * 3
    assert sp.acquired_by(0) == "m1"
    clock.advance(20_000)
    assert states(sp, 0, 1) == [(S.AVAILABLE, 1)] * 2


def test_custom_lock_duration() -> None:
    clock, sp = make(record_lock_duration_ms=1_000)
    sp.acquire("m1", [(0, 0)], max_records=1)
    clock.advance(1_000)
    assert sp.state_of(0) == (S.AVAILABLE, 1)


# -- delivery limit -----------------------------------------------------------------------
def test_delivery_limit_archives_after_the_fifth_delivery() -> None:
    clock, sp = make()
    for delivery in range(1, 5):
        assert sp.acquire(f"m{delivery}", [(0, 1)], max_records=500) == [AcquiredRecords(0, 1, delivery)]
        sp.acknowledge(f"m{delivery}", [ack(0, 0, A.RELEASE)])
        clock.advance(LOCK_MS)  # offset 1 times out
        assert states(sp, 0, 1) == [(S.AVAILABLE, delivery)] * 2
    assert sp.acquire("m5", [(0, 1)], max_records=500) == [AcquiredRecords(0, 1, 5)]
    sp.acknowledge("m5", [ack(0, 0, A.RELEASE)])
    assert sp.start_offset == 1
    clock.advance(LOCK_MS)
    assert (sp.start_offset, sp.in_flight_count) == (2, 0)
    assert sp.stats.archived_records == 2
    assert sp.acquire("m6", [(0, 1)], max_records=500) == []


def test_delivery_limit_is_configurable() -> None:
    _, sp = make(delivery_count_limit=2)
    sp.acquire("m1", [(0, 0)], max_records=1)
    sp.acknowledge("m1", [ack(0, 0, A.RELEASE)])
    assert sp.acquire("m1", [(0, 0)], max_records=1) == [AcquiredRecords(0, 0, 2)]
    sp.acknowledge("m1", [ack(0, 0, A.RELEASE)])
    assert sp.start_offset == 1


def test_acceptance_at_the_last_delivery_is_kept() -> None:
    _, sp = make(delivery_count_limit=2)
    sp.acquire("m1", [(0, 0)], max_records=1)
    sp.acknowledge("m1", [ack(0, 0, A.RELEASE)])
    sp.acquire("m1", [(0, 0)], max_records=1)
    sp.acknowledge("m1", [ack(0, 0, A.ACCEPT)])
    assert sp.stats.acknowledged_records == 1
    assert sp.stats.archived_records == 0


# -- members ------------------------------------------------------------------------------
def test_member_leaving_releases_its_records() -> None:
    clock, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=5)
    sp.acquire("m2", [(5, 9)], max_records=5)
    sp.acknowledge("m1", [ack(0, 1, A.ACCEPT)])
    assert sp.release_member("m1") == 3
    assert states(sp, 2, 6) == [(S.AVAILABLE, 1)] * 3 + [(S.ACQUIRED, 1)] * 2
    assert sp.next_fetch_offset == 2
    assert sp.release_member("m1") == 0
    # m1's lock is gone with its records; m2's still runs.
    clock.advance(LOCK_MS)
    assert states(sp, 5, 9) == [(S.AVAILABLE, 1)] * 5
    assert sp.stats.lock_timeouts == 5


# -- gaps and the log start offset ---------------------------------------------------------
def test_offsets_missing_from_the_log_are_skipped() -> None:
    _, sp = make(start=0)
    # Offsets 3-4 and 8 were compacted away.
    assert sp.acquire("m1", [(0, 2), (5, 7), (9, 9)], max_records=500) == [
        AcquiredRecords(0, 2, 1),
        AcquiredRecords(5, 7, 1),
        AcquiredRecords(9, 9, 1),
    ]
    assert sp.state_of(3) == (S.ARCHIVED, 0)
    sp.acknowledge("m1", [ack(0, 2, A.ACCEPT)])
    assert sp.start_offset == 5
    sp.acknowledge("m1", [ack(5, 7, A.ACCEPT), ack(9, 9, A.ACCEPT)])
    assert (sp.start_offset, sp.in_flight_count) == (10, 0)


def test_log_beginning_after_the_start_moves_the_window() -> None:
    _, sp = make(start=0)
    assert sp.acquire("m1", [(40, 44)], max_records=500) == [AcquiredRecords(40, 44, 1)]
    assert (sp.start_offset, sp.end_offset) == (40, 44)


def test_available_records_gone_from_the_log_are_archived_on_refetch() -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 9)], max_records=500)
    sp.acknowledge("m1", [ack(0, 9, A.RELEASE)])
    # Compaction removed 0-3 and 6 since: the re-read skips them.
    assert sp.acquire("m2", [(4, 5), (7, 9)], max_records=500) == [AcquiredRecords(4, 5, 2), AcquiredRecords(7, 9, 2)]
    assert sp.start_offset == 4
    assert sp.state_of(6) == (S.ARCHIVED, 1)


def test_gap_acknowledgement_archives() -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=500)
    sp.acknowledge("m1", [ack(0, 4, A.ACCEPT, A.GAP, A.GAP, A.ACCEPT, A.ACCEPT)])
    assert (sp.start_offset, sp.in_flight_count) == (5, 0)


def test_log_start_offset_archives_available_records() -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 9)], max_records=500)
    sp.acknowledge("m1", [ack(0, 9, A.RELEASE)])
    sp.update_log_start_offset(6)
    assert sp.start_offset == 6
    assert sp.next_fetch_offset == 6


def test_log_start_offset_past_the_window() -> None:
    _, sp = make()
    sp.update_log_start_offset(50)
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (50, 50, 50)
    sp.update_log_start_offset(40)  # never backwards
    assert sp.start_offset == 50


def test_acquired_records_below_the_log_start_are_archived_at_once() -> None:
    # Kafka's SharePartition.updateCacheAndOffsets: the start offset moves to the log start
    # offset even past acquired records; their acknowledgement is answered as done.
    clock, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=500)
    sp.update_log_start_offset(3)
    assert sp.start_offset == 3
    sp.acknowledge("m1", [ack(0, 0, A.ACCEPT)])
    sp.acknowledge("m1", [ack(1, 2, A.RELEASE)])
    assert sp.start_offset == 3
    assert sp.stats.acknowledged_records == 0
    clock.advance(LOCK_MS)
    assert states(sp, 3, 4) == [(S.AVAILABLE, 1)] * 2


def test_records_held_below_the_log_start_do_not_stall_the_share_partition() -> None:
    clock, sp = make()
    sp.acquire("m1", [(0, 4)], max_records=500)
    clock.advance(LOCK_MS // 2)
    sp.acquire("m1", [(5, 9)], max_records=500)
    sp.update_log_start_offset(7)
    # Another member acquires from the new start at once, no wait for m1's locks.
    assert (sp.start_offset, sp.next_fetch_offset) == (7, 10)
    assert sp.acquire("m2", [(10, 11)], max_records=500) == [AcquiredRecords(10, 11, 1)]
    assert states(sp, 7, 9) == [(S.ACQUIRED, 1)] * 3
    assert sp.acquired_by(7) == "m1"
    assert sp.stats.archived_records == 7
    # Not persisted acquisitions; the start offset is the log start offset.
    assert sp.snapshot() == (7, [])
    # An acknowledgement across the log start: the part below it is answered as done.
    sp.acknowledge("m1", [ack(4, 7, A.ACCEPT)])
    assert (sp.start_offset, sp.stats.acknowledged_records) == (8, 1)
    # m1's first lock is gone with its records: 8-9 (and m2's 10-11) come back when the
    # second ends.
    clock.advance(LOCK_MS // 2)
    assert sp.stats.lock_timeouts == 0
    clock.advance(LOCK_MS // 2)
    assert (sp.stats.lock_timeouts, sp.next_fetch_offset) == (4, 8)
    # An acknowledgement wholly below the log start by a member holding nothing there.
    sp.acknowledge("m3", [ack(0, 2, A.REJECT)])
    assert sp.stats.archived_records == 7


# -- durable state -------------------------------------------------------------------------
def test_snapshot_leaves_acquisitions_out() -> None:
    # As Kafka's SharePartition: an acquisition is not written, so acquired records are
    # stored as they were before (never delivered: no state at all).
    _, sp = make(start=10)
    sp.acquire("m1", [(10, 19)], max_records=500)
    sp.acknowledge("m1", [ack(12, 13, A.ACCEPT), ack(15, 15, A.REJECT)])
    assert sp.snapshot() == (
        10,
        [
            PersistedBatch(12, 13, S.ACKNOWLEDGED, 1),
            PersistedBatch(15, 15, S.ARCHIVED, 1),
        ],
    )


def test_snapshot_stores_a_reacquired_record_at_its_last_written_count() -> None:
    _, sp = make(start=10)
    sp.acquire("m1", [(10, 13)], max_records=500)
    sp.acknowledge("m1", [ack(10, 11, A.RELEASE), ack(12, 12, A.ACCEPT)])
    assert sp.acquire("m2", [(10, 13)], max_records=500) == [AcquiredRecords(10, 11, 2)]
    assert sp.snapshot() == (
        10,
        [
            PersistedBatch(10, 11, S.AVAILABLE, 1),
            PersistedBatch(12, 12, S.ACKNOWLEDGED, 1),
        ],
    )


def test_restore_redelivers_what_was_not_finished() -> None:
    clock, sp = make(start=10)
    sp.acquire("m1", [(10, 19)], max_records=500)
    sp.acknowledge("m1", [ack(12, 13, A.ACCEPT), ack(15, 15, A.REJECT)])
    start, batches = sp.snapshot()
    again = SharePartition.restored(clock, start, batches)
    assert (again.start_offset, again.end_offset) == (10, 15)
    got = again.acquire("m2", [(10, 19)], max_records=500)
    # The delivery in flight at the crash was never written: delivered again as the first.
    assert got == [AcquiredRecords(10, 11, 1), AcquiredRecords(14, 14, 1), AcquiredRecords(16, 19, 1)]


def test_restore_treats_offsets_without_state_as_never_delivered() -> None:
    clock = ManualClock()
    sp = SharePartition.restored(clock, 100, [PersistedBatch(103, 104, S.ACKNOWLEDGED, 1)])
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (100, 104, 100)
    assert sp.acquire("m1", [(100, 106)], max_records=500) == [AcquiredRecords(100, 102, 1), AcquiredRecords(105, 106, 1)]
    sp.acknowledge("m1", [ack(100, 102, A.ACCEPT)])
    assert sp.start_offset == 105


def test_restore_refuses_inconsistent_state() -> None:
    clock = ManualClock()
    with pytest.raises(ValueError):
        SharePartition.restored(clock, 0, [PersistedBatch(0, 4, S.ACQUIRED, 1)])
    with pytest.raises(ValueError):
        SharePartition.restored(
            clock, 0, [PersistedBatch(0, 4, S.AVAILABLE, 1), PersistedBatch(3, 6, S.AVAILABLE, 1)]
        )


# -- read_committed: what the caller leaves out is not delivered ------------------------------
def test_aborted_records_and_markers_left_out_are_archived() -> None:
    _, sp = make()
    # Log: 0-4 committed data, 5 commit marker, 6-8 aborted data, 9 abort marker, 10-11 data.
    assert sp.acquire("m1", [(0, 4), (10, 11)], max_records=500, read_until=12) == [
        AcquiredRecords(0, 4, 1),
        AcquiredRecords(10, 11, 1),
    ]
    assert states(sp, 5, 9) == [(S.ARCHIVED, 0)] * 5
    sp.acknowledge("m1", [ack(0, 4, A.ACCEPT), ack(10, 11, A.ACCEPT)])
    assert (sp.start_offset, sp.in_flight_count) == (12, 0)


def test_a_read_with_nothing_to_deliver_moves_the_window() -> None:
    _, sp = make(start=20)
    # Only an aborted batch and its marker up to the last stable offset 25.
    assert sp.acquire("m1", [], max_records=500, read_until=25) == []
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (25, 25, 25)


def test_skipped_tail_is_archived_only_when_the_read_covered_it() -> None:
    _, sp = make()
    # Stopped by max_records (RECORD_LIMIT) inside the read: the rest is not skipped.
    got = sp.acquire("m1", [(0, 4), (5, 9)], max_records=3, mode=AcquireMode.RECORD_LIMIT, read_until=10)
    assert got == [AcquiredRecords(0, 2, 1)]
    assert sp.next_fetch_offset == 3
    assert sp.state_of(5) is None
    # Trailing skipped offsets after the last batch.
    assert sp.acquire("m2", [(3, 4)], max_records=500, read_until=10) == [AcquiredRecords(3, 4, 1)]
    assert states(sp, 5, 9) == [(S.ARCHIVED, 0)] * 5
    assert sp.next_fetch_offset == 10


def test_released_records_gone_from_the_read_are_archived() -> None:
    _, sp = make()
    sp.acquire("m1", [(0, 3)], max_records=500)
    sp.acknowledge("m1", [ack(0, 3, A.RELEASE)])
    assert sp.acquire("m2", [(0, 1)], max_records=500, read_until=4) == [AcquiredRecords(0, 1, 2)]
    assert states(sp, 2, 3) == [(S.ARCHIVED, 1)] * 2


def test_an_acknowledgement_below_the_start_offset_it_started_at_is_refused() -> None:
    # Only what the log start offset archived is answered as done: offsets below where the
    # share partition started (read back after a restart) were never acquired from it, as
    # Kafka's SharePartition answers them (INVALID_RECORD_STATE).
    _, sp = make(10)
    with pytest.raises(ShareAcknowledgeError) as refused:
        sp.acknowledge("m1", [ack(3, 4, A.ACCEPT)])
    assert refused.value.error_code is ErrorCode.INVALID_RECORD_STATE
    sp.update_log_start_offset(12)
    sp.acknowledge("m1", [ack(3, 4, A.ACCEPT)])  # archived by the log start offset now
    assert (sp.start_offset, sp.stats.acknowledged_records) == (12, 0)
