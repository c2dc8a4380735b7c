"""InitializeShareGroupState and ReadShareGroupStateSummary on the share coordinator's store
(Kafka's ShareCoordinatorShard): a new state epoch and start offset as a snapshot with no
batches, older state epochs fenced (initializations and writes), the summary's
DeliveryCompleteCount; and the share sessions that tell a leader a group has emptied."""

from __future__ import annotations

import uuid

import pytest

from coordinator.log import CoordinatorLogError, MemoryCoordinatorLog
from coordinator.share import records as rec
from coordinator.share.partition import PersistedBatch
from coordinator.share.persister import LocalPersister
from coordinator.share.record_state import RecordState
from coordinator.share.records import SharePartitionKey
from coordinator.share.sessions import ShareSessionCache
from coordinator.share.state_store import ShareStateStore, ShareSummary, summary
from protocol.errors import ErrorCode
from storage.clock import ManualClock

S = RecordState
KEY = SharePartitionKey("g", uuid.UUID(int=7), 0)


def records(log: MemoryCoordinatorLog) -> list[tuple[int, rec.ShareSnapshot | None]]:
    out: list[tuple[int, rec.ShareSnapshot | None]] = []
    for p in log.partitions.values():
        for r in p:
            assert r.key is not None
            kind, _ = rec.decode_key(r.key)
            out.append((kind, rec.decode_snapshot(r.value) if kind == rec.SNAPSHOT and r.value else None))
    return out


async def test_initialize_writes_a_snapshot_of_a_new_state_epoch_and_start_offset() -> None:
    clock, log = ManualClock(), MemoryCoordinatorLog()
    store = ShareStateStore(log, clock)
    await store.load()
    await store.write(KEY, 0, [PersistedBatch(0, 3, S.ACKNOWLEDGED, 1)], leader_epoch=4)
    await store.initialize(KEY, 3, 5)
    state = store.read(KEY)
    assert state is not None
    assert (state.start_offset, state.batches, state.snapshot_epoch, state.state_epoch, state.leader_epoch) == (
        5, (), 1, 3, 0)
    [_, (kind, snapshot)] = records(log)
    assert kind == rec.SNAPSHOT and snapshot is not None
    assert (snapshot.state_epoch, snapshot.start_offset, snapshot.delivery_complete_count) == (3, 5, 0)
    reloaded = ShareStateStore(log, clock)
    await reloaded.load()
    assert reloaded.read(KEY) == state

    # The same epoch again is allowed; an older one is fenced and writes nothing.
    await store.initialize(KEY, 3, 6)
    with pytest.raises(CoordinatorLogError) as fenced:
        await store.initialize(KEY, 2, 0)
    assert fenced.value.error is ErrorCode.FENCED_STATE_EPOCH
    assert len(records(log)) == 3
    assert summary(store.states[KEY]) == ShareSummary(3, 0, 6, 0)


async def test_a_write_of_an_older_state_epoch_is_fenced() -> None:
    clock, log = ManualClock(), MemoryCoordinatorLog()
    store = ShareStateStore(log, clock)
    await store.load()
    await store.initialize(KEY, 1, 0)
    with pytest.raises(CoordinatorLogError) as fenced:
        await store.write(KEY, 2, [], state_epoch=0)
    assert fenced.value.error is ErrorCode.FENCED_STATE_EPOCH
    await store.write(KEY, 2, [PersistedBatch(2, 4, S.ARCHIVED, 5)], state_epoch=1)
    await store.write(KEY, 2, [PersistedBatch(5, 5, S.ACKNOWLEDGED, 1), PersistedBatch(6, 6, S.AVAILABLE, 1)])
    assert summary(store.states[KEY]) == ShareSummary(1, 0, 2, 4)


async def test_a_state_initialized_without_a_start_offset_is_none_to_its_leader() -> None:
    store = ShareStateStore(MemoryCoordinatorLog(), ManualClock())
    await store.load()
    persister = LocalPersister(store)
    await persister.initialize(KEY, 0, -1)
    assert await persister.read(KEY) is None
    assert await persister.read_summary(KEY) == ShareSummary(0, 0, -1, -1)
    assert await persister.read_summary(SharePartitionKey("other", KEY.topic_id, 0)) is None


def test_a_group_empties_when_its_last_session_here_is_closed() -> None:
    sessions = ShareSessionCache()
    sessions.open("g", "a")
    sessions.open("g", "b")
    sessions.close("g", "a")
    assert not sessions.take_emptied("g")
    sessions.close("g", "b")
    assert sessions.take_emptied("g")
    assert not sessions.take_emptied("g")
    # A member removed by its group coordinator did not close its session itself.
    sessions.open("g", "c")
    sessions.close_member("g", "c")
    assert not sessions.take_emptied("g")
    # A new session before the release ran: not empty after all.
    sessions.open("g", "d")
    sessions.close("g", "d")
    sessions.open("g", "e")
    assert not sessions.take_emptied("g")
