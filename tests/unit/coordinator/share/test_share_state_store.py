"""The durable state of share partitions in `__share_group_state`: written before a change is
answered (acquisitions are not written), a snapshot after N updates, replayed on load, and a failed append leaves the share
partition (and the stored state) exactly as before."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from coordinator.log import CoordinatorLogError, MemoryCoordinatorLog
from coordinator.share import records as rec
from coordinator.share.config import SharePartitionConfig
from coordinator.share.partition import (
    Acknowledgement,
    AcquiredRecords,
    PersistedBatch,
    ShareAcknowledgeError,
    SharePartition,
)
from coordinator.share.partitions import SharePartitions
from coordinator.share.record_state import AcknowledgeType, RecordState
from coordinator.share.records import SharePartitionKey
from coordinator.share.state_store import ShareStateStore, coordinator_key, merge_batches
from protocol.errors import ErrorCode
from storage.clock import ManualClock

A = AcknowledgeType
S = RecordState
KEY = SharePartitionKey("g", uuid.UUID(int=7), 0)
LOCK_MS = 30_000


async def fresh(log: MemoryCoordinatorLog, clock: ManualClock, every: int = 500) -> SharePartitions:
    store = ShareStateStore(log, clock, snapshot_every=every)
    await store.load()
    return SharePartitions(store, clock)


def types_in(log: MemoryCoordinatorLog) -> list[int]:
    return [rec.decode_key(r.key)[0] for p in log.partitions.values() for r in p if r.key is not None]


def acquire(sp: SharePartition, member: str, first: int, last: int) -> list[AcquiredRecords]:
    return sp.acquire(member, [(first, last)], 500)


def test_merge_batches_newer_wins_offset_by_offset() -> None:
    old = [PersistedBatch(0, 9, S.AVAILABLE, 1)]
    new = [PersistedBatch(3, 4, S.ACKNOWLEDGED, 1), PersistedBatch(12, 12, S.ARCHIVED, 2)]
    assert merge_batches(old, new, 2) == (
        PersistedBatch(2, 2, S.AVAILABLE, 1),
        PersistedBatch(3, 4, S.ACKNOWLEDGED, 1),
        PersistedBatch(5, 9, S.AVAILABLE, 1),
        PersistedBatch(12, 12, S.ARCHIVED, 2),
    )


def test_coordinator_key_is_kafkas() -> None:
    assert coordinator_key(KEY) == f"g:{uuid.UUID(int=7)}:0"


async def test_acquisition_writes_nothing_and_acknowledgement_is_durable_before_answered() -> None:
    clock, log = ManualClock(), MemoryCoordinatorLog()
    parts = await fresh(log, clock)
    sp = parts.get(KEY, lambda: 0)
    got = await parts.in_memory(KEY, lambda sp: acquire(sp, "m1", 0, 9))
    assert got == [AcquiredRecords(0, 9, 1)]
    assert types_in(log) == []
    await parts.change(KEY, lambda sp: sp.acknowledge("m1", [Acknowledgement(0, 3, (A.ACCEPT,))]))
    assert types_in(log) == [rec.SNAPSHOT]
    assert sp.start_offset == 4

    # A restart: acknowledged stay acknowledged, what was acquired is delivered again, at
    # the delivery count last written (none: as the first delivery, as Kafka does).
    clock2 = ManualClock()
    parts2 = await fresh(log, clock2)
    sp2 = parts2.get(KEY, lambda: 100)
    assert sp2.start_offset == 4
    assert sp2.state_of(4) is None
    assert await parts2.in_memory(KEY, lambda sp: acquire(sp, "m2", 4, 9)) == [AcquiredRecords(4, 9, 1)]


async def test_a_failed_append_leaves_no_trace() -> None:
    clock, log = ManualClock(), MemoryCoordinatorLog()
    parts = await fresh(log, clock)
    sp = parts.get(KEY, lambda: 0)
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m1", 0, 4))
    before = list(log.partitions[parts.store.partition_for(KEY)])
    log.fail_next = 1
    with pytest.raises(CoordinatorLogError) as err:
        await parts.change(KEY, lambda sp: sp.acknowledge("m1", [Acknowledgement(0, 4, (A.ACCEPT,))]))
    assert err.value.error is ErrorCode.NOT_ENOUGH_REPLICAS
    assert log.partitions[parts.store.partition_for(KEY)] == before
    assert [sp.state_of(o) for o in range(5)] == [(S.ACQUIRED, 1)] * 5
    assert sp.acquired_by(0) == "m1"
    # The lock still runs: the records come back when it times out.
    clock.advance(LOCK_MS)
    assert sp.state_of(0) == (S.AVAILABLE, 1)


async def test_acknowledgements_queued_behind_a_write_share_the_next_one() -> None:
    clock, log = ManualClock(), MemoryCoordinatorLog()
    parts = await fresh(log, clock)
    sp = parts.get(KEY, lambda: 0)
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m1", 0, 4))
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m2", 5, 9))
    async with parts.lock(KEY):  # a write under way
        first = asyncio.ensure_future(
            parts.change(KEY, lambda sp: sp.acknowledge("m1", [Acknowledgement(0, 4, (A.ACCEPT,))])))
        second = asyncio.ensure_future(
            parts.change(KEY, lambda sp: sp.acknowledge("m2", [Acknowledgement(5, 9, (A.REJECT,))])))
        refused = asyncio.ensure_future(
            parts.change(KEY, lambda sp: sp.acknowledge("m2", [Acknowledgement(0, 0, (A.ACCEPT,))])))
        await asyncio.sleep(0)
    await first
    await second
    with pytest.raises(ShareAcknowledgeError) as err:
        await refused
    assert err.value.error_code is ErrorCode.INVALID_RECORD_STATE
    assert types_in(log) == [rec.SNAPSHOT]
    assert sp.start_offset == 10

    # A failed write fails and rolls back every change it carried.
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m1", 10, 11))
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m2", 12, 13))
    log.fail_next = 1
    async with parts.lock(KEY):
        a = asyncio.ensure_future(
            parts.change(KEY, lambda sp: sp.acknowledge("m1", [Acknowledgement(10, 11, (A.ACCEPT,))])))
        b = asyncio.ensure_future(
            parts.change(KEY, lambda sp: sp.acknowledge("m2", [Acknowledgement(12, 13, (A.RELEASE,))])))
        await asyncio.sleep(0)
    for task in (a, b):
        with pytest.raises(CoordinatorLogError):
            await task
    assert [sp.state_of(o) for o in range(10, 14)] == [(S.ACQUIRED, 1)] * 4
    assert [sp.acquired_by(o) for o in range(10, 14)] == ["m1", "m1", "m2", "m2"]
    assert types_in(log) == [rec.SNAPSHOT]


async def test_acquisitions_go_on_while_a_write_is_under_way() -> None:
    """As Kafka's SharePartition: an acquisition does not wait for an acknowledgement's write;
    the records that write changes are not acquired again nor passed by the start offset until
    it is durable, and its failure puts back only them."""
    clock, log = ManualClock(), MemoryCoordinatorLog()
    parts = await fresh(log, clock)
    sp = parts.get(KEY, lambda: 0)
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m1", 0, 4))
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m2", 5, 9))
    for fail in (True, False):
        log.append_gate = asyncio.Event()
        log.fail_next = 1 if fail else 0
        acked = asyncio.ensure_future(parts.change(KEY, lambda sp: sp.acknowledge(
            "m1", [Acknowledgement(0, 1, (A.ACCEPT,)), Acknowledgement(2, 4, (A.RELEASE,))])))
        for _ in range(100):  # the write applies its change, then waits on the gate
            if sp.state_of(0) == (S.ACKNOWLEDGED, 1):
                break
            await asyncio.sleep(0)
        assert sp.state_of(0) == (S.ACKNOWLEDGED, 1)
        # The write waits: the released records are not acquirable yet, new ones are.
        assert sp.next_fetch_offset == 10
        got = await asyncio.wait_for(parts.in_memory(KEY, lambda sp: sp.acquire("m2", [(2, 4), (10, 11)], 500)), 1)
        # (released after the first round's failure, so a second delivery in the second)
        assert got == [AcquiredRecords(10, 11, 1 if fail else 2)]
        assert sp.start_offset == 0
        log.append_gate.set()
        if fail:
            with pytest.raises(CoordinatorLogError):
                await acked
            assert [sp.state_of(o) for o in range(5)] == [(S.ACQUIRED, 1)] * 5
            assert [sp.acquired_by(o) for o in (0, 4, 10)] == ["m1", "m1", "m2"]
            assert sp.stats.acknowledged_records == 0
            await parts.in_memory(KEY, lambda sp: sp.acknowledge("m2", [Acknowledgement(10, 11, (A.RELEASE,))]))
        else:
            await acked
            assert [sp.state_of(o) for o in range(2, 5)] == [(S.AVAILABLE, 1)] * 3
            assert (sp.start_offset, sp.next_fetch_offset, sp.acquired_by(10)) == (2, 2, "m2")
            assert sp.stats.acknowledged_records == 2
    # What was written is the state after the change (start offset 2, the released records),
    # not the acquisitions: 5 was never delivered as far as a restart knows.
    sp2 = (await fresh(log, ManualClock())).get(KEY, lambda: 0)
    assert (sp2.start_offset, sp2.state_of(2), sp2.state_of(5)) == (2, (S.AVAILABLE, 1), (S.AVAILABLE, 0))


async def test_a_lock_timeout_is_written() -> None:
    clock, log = ManualClock(), MemoryCoordinatorLog()
    parts = await fresh(log, clock)
    tasks: list[asyncio.Future[None]] = []
    parts.spawn = lambda coro: tasks.append(asyncio.ensure_future(coro))
    parts.get(KEY, lambda: 0, SharePartitionConfig(delivery_count_limit=2))
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m", 0, 1))
    clock.advance(LOCK_MS)
    await asyncio.gather(*tasks)
    assert types_in(log) == [rec.SNAPSHOT]
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m", 0, 1))
    clock.advance(LOCK_MS)  # the last allowed delivery timed out: archived, and written
    await asyncio.gather(*tasks)
    assert types_in(log) == [rec.SNAPSHOT, rec.UPDATE]
    sp2 = (await fresh(log, ManualClock())).get(KEY, lambda: 0, SharePartitionConfig(delivery_count_limit=2))
    assert (sp2.start_offset, sp2.in_flight_count) == (2, 0)


async def test_a_snapshot_after_n_updates_and_load_replays_them() -> None:
    clock, log = ManualClock(), MemoryCoordinatorLog()
    parts = await fresh(log, clock, every=3)
    parts.get(KEY, lambda: 0)
    for o in range(12):
        await parts.in_memory(KEY, lambda sp, o=o: acquire(sp, "m", o, o))
        await parts.change(KEY, lambda sp, o=o: sp.acknowledge("m", [Acknowledgement(o, o, (A.ACCEPT,))]))
    assert types_in(log) == [0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1]
    reloaded = ShareStateStore(log, clock)
    await reloaded.load()
    state = reloaded.states[KEY]
    assert (state.start_offset, state.batches, state.snapshot_epoch) == (12, (), 2)


async def test_an_unchanged_state_is_not_written_again() -> None:
    clock, log = ManualClock(), MemoryCoordinatorLog()
    parts = await fresh(log, clock)
    parts.get(KEY, lambda: 0)
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m", 0, 1))
    await parts.change(KEY, lambda sp: sp.acknowledge("m", [Acknowledgement(0, 1, (A.RELEASE,))]))
    # Acquired again: stored as before it was (available, delivered once).
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m", 0, 1))
    await parts.change(KEY, lambda sp: sp.acquire("m", [], 10))
    assert types_in(log) == [rec.SNAPSHOT]


async def test_the_last_delivery_in_flight_at_a_crash_is_made_again() -> None:
    # Kafka writes no acquisition: the delivery in flight at the crash was not counted, so
    # the restarted broker makes it again, and archives the record when it ends unacknowledged.
    clock, log = ManualClock(), MemoryCoordinatorLog()
    parts = await fresh(log, clock)
    parts.get(KEY, lambda: 0, SharePartitionConfig(delivery_count_limit=2))
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m", 0, 1))
    await parts.change(KEY, lambda sp: sp.acknowledge("m", [Acknowledgement(0, 1, (A.RELEASE,))]))
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m", 0, 1))
    parts2 = await fresh(log, ManualClock())
    sp2 = parts2.get(KEY, lambda: 0, SharePartitionConfig(delivery_count_limit=2))
    assert sp2.start_offset == 0
    assert sp2.state_of(0) == (S.AVAILABLE, 1)
    assert await parts2.in_memory(KEY, lambda sp: acquire(sp, "m", 0, 1)) == [AcquiredRecords(0, 1, 2)]
    await parts2.change(KEY, lambda sp: sp.acknowledge("m", [Acknowledgement(0, 1, (A.RELEASE,))]))
    assert (sp2.start_offset, sp2.in_flight_count) == (2, 0)


async def test_reset_and_delete() -> None:
    clock, log = ManualClock(), MemoryCoordinatorLog()
    parts = await fresh(log, clock)
    parts.get(KEY, lambda: 0)
    await parts.in_memory(KEY, lambda sp: acquire(sp, "m", 0, 4))
    await parts.reset(KEY, 42)
    assert parts.get(KEY, lambda: 0).start_offset == 42
    await parts.delete(KEY)
    assert KEY not in parts.store.states
    parts2 = await fresh(log, ManualClock())
    assert KEY not in parts2.store.states
    assert parts2.get(KEY, lambda: 9).start_offset == 9


async def test_state_partitions_follow_leadership() -> None:
    """In a cluster the store holds only the partitions this broker leads: loaded on
    election, dropped on resignation, stale notifications ignored."""
    clock, log = ManualClock(), MemoryCoordinatorLog(3)
    writer = ShareStateStore(log, clock)
    await writer.load()
    await writer.write(KEY, 5, [PersistedBatch(5, 6, S.ACKNOWLEDGED, 1)])
    p = writer.partition_for(KEY)
    store = ShareStateStore(log, clock, owns_all=False)
    await store.load()
    assert store.error(KEY) == ErrorCode.NOT_COORDINATOR and KEY not in store.states
    with pytest.raises(CoordinatorLogError) as refused:
        await store.write(KEY, 7, [])
    assert refused.value.error == ErrorCode.NOT_COORDINATOR
    task = store.on_election(p, 3)
    assert task is not None and store.error(KEY) == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
    await task
    assert store.error(KEY) is None
    assert store.states[KEY].start_offset == 5
    assert store.on_election(p, 2) is None  # stale
    await store.write(KEY, 7, [])
    store.on_resignation(p, 2)  # stale: still held
    assert store.states[KEY].start_offset == 7
    store.on_resignation(p, 4)
    assert store.error(KEY) == ErrorCode.NOT_COORDINATOR and KEY not in store.states
    task = store.on_election(p, 5)
    assert task is not None
    await task
    assert store.states[KEY].start_offset == 7


async def test_a_newer_leader_epoch_read_fences_the_former_leaders_writes() -> None:
    """Kafka's readStateAndMaybeUpdateLeaderEpoch: the data partition's new leader reads at
    its epoch, written before answered; the former leader's writes are refused from then on."""
    clock, log = ManualClock(), MemoryCoordinatorLog(3)
    store = ShareStateStore(log, clock)
    await store.load()
    await store.write(KEY, 5, [PersistedBatch(5, 6, S.ACKNOWLEDGED, 1)], 1)
    assert (await store.read_for_leader(KEY, 1)) == store.states[KEY]
    state = await store.read_for_leader(KEY, 2)
    assert state is not None and (state.leader_epoch, state.start_offset) == (2, 5)
    with pytest.raises(CoordinatorLogError) as fenced:
        await store.write(KEY, 7, [], 1)
    assert fenced.value.error == ErrorCode.FENCED_LEADER_EPOCH
    with pytest.raises(CoordinatorLogError):
        await store.read_for_leader(KEY, 1)
    await store.write(KEY, 7, [], 2)
    reloaded = ShareStateStore(log, clock)
    await reloaded.load()
    assert (reloaded.states[KEY].leader_epoch, reloaded.states[KEY].start_offset) == (2, 7)
