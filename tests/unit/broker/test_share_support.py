"""Which offsets of a log read a share partition may deliver (broker/share_support.py): data
batches only, and under read_committed none of an aborted transaction's; how much one
acquisition reads."""

from __future__ import annotations

from broker.share_support import (
    FIRST_READ_RECORD_BYTES,
    MIN_READ_BYTES,
    READ_AHEAD_MAX_BYTES,
    ReadAhead,
    deliverable,
    learn_record_size,
    read_bytes,
    records_for,
)
from coordinator.share.partition import Acknowledgement, AcquiredRecords, AcquireMode, SharePartition
from coordinator.share.record_state import AcknowledgeType
from protocol import record_batch as rb
from storage.clock import ManualClock
from storage.engine import READ_COMMITTED, READ_UNCOMMITTED, AbortedTransaction


def _data(base: int, count: int, pid: int = -1) -> bytes:
    records = [rb.Record(None, b"v", timestamp=0) for _ in range(count)]
    if pid < 0:
        return bytes(rb.build_batch(records, base_offset=base))
    return bytes(rb.build_batch(records, base_offset=base, producer_id=pid, producer_epoch=0, base_sequence=0,
                                transactional=True))


def _marker(base: int, pid: int, kind: rb.ControlType) -> bytes:
    return bytes(rb.build_control_batch(kind, producer_id=pid, producer_epoch=0, coordinator_epoch=0, timestamp=0,
                                        base_offset=base))


# 0-1 plain; 2-4 producer 7 aborted (marker 5); 6-7 producer 8 committed (marker 8); 9 plain.
LOG = (_data(0, 2) + _data(2, 3, pid=7) + _marker(5, 7, rb.ControlType.ABORT) + _data(6, 2, pid=8)
       + _marker(8, 8, rb.ControlType.COMMIT) + _data(9, 1))
ABORTED = [AbortedTransaction(producer_id=7, first_offset=2)]


def test_read_uncommitted_delivers_every_data_batch() -> None:
    read = deliverable(LOG, READ_UNCOMMITTED, None)
    assert read.ranges == [(0, 1), (2, 4), (6, 7), (9, 9)]
    assert read.read_until == 10


def test_read_committed_skips_aborted_batches_and_markers() -> None:
    read = deliverable(LOG, READ_COMMITTED, ABORTED)
    assert read.ranges == [(0, 1), (6, 7), (9, 9)]
    assert read.read_until == 10


def test_records_for_sends_the_batches_holding_acquired_offsets() -> None:
    read = deliverable(LOG, READ_UNCOMMITTED, None)
    out = records_for(read, [AcquiredRecords(3, 3, 1), AcquiredRecords(9, 9, 2)])
    assert [(h.base_offset, h.last_offset) for _, h in rb.iter_batches(out)] == [(2, 4), (9, 9)]


def test_records_for_adjacent_batches_is_a_slice_of_the_read() -> None:
    read = deliverable(LOG, READ_UNCOMMITTED, None)
    out = records_for(read, [AcquiredRecords(0, 4, 1)])
    assert isinstance(out, memoryview) and out.obj is read.data.obj
    assert bytes(out) == LOG[:len(_data(0, 2)) + len(_data(2, 3, pid=7))]
    assert records_for(read, [AcquiredRecords(10, 12, 1)]) == b""


def test_an_empty_read_covers_nothing() -> None:
    read = deliverable(b"", READ_COMMITTED, [])
    assert (read.ranges, read.read_until, read.batches) == ([], None, [])


def test_a_read_is_sized_for_the_budget_by_the_records_seen() -> None:
    sp = SharePartition(ManualClock(), 0)
    # Nothing read yet: records taken as 1 KiB; never below 64 KiB, never above MaxBytes.
    # Three times the budget's bytes (the rest serves the next acquisition) up to 1 MiB, then twice.
    assert read_bytes(sp, 300, 50 * 1024 * 1024) == 3 * 300 * FIRST_READ_RECORD_BYTES
    assert read_bytes(sp, 500, 50 * 1024 * 1024) == 2 * 500 * FIRST_READ_RECORD_BYTES
    assert read_bytes(sp, 1, 50 * 1024 * 1024) == MIN_READ_BYTES
    assert read_bytes(sp, 500, 1000) == 1000
    assert read_bytes(sp, 500, 0) == 1
    read = deliverable(LOG, READ_UNCOMMITTED, None)
    learn_record_size(sp, read)
    size = sum(len(b) for _, _, b in read.batches) // 8  # 8 records in the data batches
    assert sp.record_bytes_hint == size
    assert read_bytes(sp, 100_000, 50 * 1024 * 1024) == 2 * 100_000 * size
    assert read_bytes(sp, 500, 50 * 1024 * 1024) == max(MIN_READ_BYTES, 3 * 500 * size)
    learn_record_size(sp, deliverable(b"", READ_UNCOMMITTED, None))  # an empty read teaches nothing
    assert sp.record_bytes_hint == size


def test_the_rest_of_a_read_serves_the_next_acquisition_once() -> None:
    sp = SharePartition(ManualClock(), 0)
    ahead = ReadAhead()
    read = deliverable(LOG, READ_COMMITTED, ABORTED)
    assert sp.acquire("a", read.ranges, 2, read_until=read.read_until, read_from=0) == [AcquiredRecords(0, 1, 1)]
    ahead.keep(sp, READ_COMMITTED, read)
    # Another isolation level, or a budget the rest cannot fill: a fresh read (and the rest is gone).
    assert ahead.take(sp, READ_UNCOMMITTED, 1, 0) is None
    assert ahead.take(sp, READ_COMMITTED, 1, 0) is None
    ahead.keep(sp, READ_COMMITTED, read)
    assert ahead.take(sp, READ_COMMITTED, 4, 0) is None
    ahead.keep(sp, READ_COMMITTED, read)
    rest = ahead.take(sp, READ_COMMITTED, 3, 0)
    assert rest is not None and (rest.ranges, rest.read_until) == ([(6, 7), (9, 9)], 10)
    assert ahead.take(sp, READ_COMMITTED, 3, 0) is None  # taken once
    # Out of the rest, as out of a fresh read from 2: the aborted 2-5 archived, 6-7 acquired.
    assert sp.acquire("b", rest.ranges, 2, read_until=rest.read_until, read_from=2) == [AcquiredRecords(6, 7, 1)]
    assert bytes(records_for(rest, [AcquiredRecords(6, 7, 1)])) == _data(6, 2, pid=8)
    ahead.keep(sp, READ_COMMITTED, rest)
    # Something made available again moves the next fetch offset below the rest: not taken.
    sp.acknowledge("a", [Acknowledgement(0, 1, (AcknowledgeType.RELEASE,))])
    assert sp.next_fetch_offset == 0
    assert ahead.take(sp, READ_COMMITTED, 1, 0) is None


def test_the_rest_is_not_taken_once_the_log_start_passed_the_share_partitions_start() -> None:
    sp = SharePartition(ManualClock(), 0)
    ahead = ReadAhead()
    read = deliverable(LOG, READ_UNCOMMITTED, None)
    assert sp.acquire("a", read.ranges, 2, read_until=read.read_until, read_from=0) == [AcquiredRecords(0, 1, 1)]
    ahead.keep(sp, READ_UNCOMMITTED, read)
    assert sp.start_offset == 0
    # DeleteRecords moved the log's start: a fresh read archives what it deleted.
    assert ahead.take(sp, READ_UNCOMMITTED, 1, 1) is None
    ahead.keep(sp, READ_UNCOMMITTED, read)
    assert ahead.take(sp, READ_UNCOMMITTED, 1, 0) is not None


def test_the_rests_of_all_partitions_hold_at_most_the_total_the_oldest_giving_way() -> None:
    read = deliverable(LOG, READ_UNCOMMITTED, None)
    ahead = ReadAhead(total_bytes=2 * len(read.data))
    sps = [SharePartition(ManualClock(), 0) for _ in range(3)]
    for i, sp in enumerate(sps):
        assert sp.acquire("a", read.ranges, 2, read_until=read.read_until, read_from=0) == [AcquiredRecords(0, 1, 1)]
        ahead.keep(sp, READ_UNCOMMITTED, read)
        if i == 1:
            ahead.keep(sps[0], READ_UNCOMMITTED, read)  # kept again: now the newest
    assert [ahead.take(sp, READ_UNCOMMITTED, 1, 0) is not None for sp in sps] == [True, False, True]
    # Taken, they hold nothing: room for two again.
    for sp in sps[1:]:
        ahead.keep(sp, READ_UNCOMMITTED, read)
    assert [ahead.take(sp, READ_UNCOMMITTED, 1, 0) is not None for sp in sps] == [False, True, True]


def test_the_rest_of_a_large_read_is_not_kept() -> None:
    sp = SharePartition(ManualClock(), 0)
    ahead = ReadAhead()
    big = _data(0, 1) + _data(1, 1) + bytes(READ_AHEAD_MAX_BYTES)  # zeros past the batches end the walk
    read = deliverable(big, READ_UNCOMMITTED, None)
    assert read.ranges == [(0, 0), (1, 1)]
    assert sp.acquire("a", read.ranges, 1, read_until=read.read_until, read_from=0) == [AcquiredRecords(0, 0, 1)]
    ahead.keep(sp, READ_UNCOMMITTED, read)
    assert ahead.take(sp, READ_UNCOMMITTED, 1, 0) is None


def test_a_batch_split_by_a_record_limit_stays_in_the_rest() -> None:
    sp = SharePartition(ManualClock(), 0)
    ahead = ReadAhead()
    read = deliverable(LOG, READ_UNCOMMITTED, None)
    got = sp.acquire("a", read.ranges, 3, AcquireMode.RECORD_LIMIT, read_until=read.read_until, read_from=0)
    assert got == [AcquiredRecords(0, 2, 1)]
    ahead.keep(sp, READ_UNCOMMITTED, read)
    rest = ahead.take(sp, READ_UNCOMMITTED, 3, 0)
    assert rest is not None and rest.ranges == [(2, 4), (6, 7), (9, 9)]
    got = sp.acquire("b", rest.ranges, 2, AcquireMode.RECORD_LIMIT, read_until=rest.read_until, read_from=3)
    assert got == [AcquiredRecords(3, 4, 1)]
