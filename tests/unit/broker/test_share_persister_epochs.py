"""The cluster persister (broker/share_persister.py) on the broker that leads the state
partition: an AlterShareGroupOffsets of a share partition that had no state fences the
writes of the leader that read it before (FENCED_STATE_EPOCH), as it does one with state."""

from __future__ import annotations

import uuid

import pytest

from broker.inter_broker import InterBrokerClient
from broker.share_persister import ClusterSharePersister
from coordinator.log import CoordinatorLogError, MemoryCoordinatorLog
from coordinator.share.partition import PersistedBatch
from coordinator.share.record_state import RecordState
from coordinator.share.records import SharePartitionKey
from coordinator.share.state_store import ShareStateStore, next_state_epoch
from protocol.errors import ErrorCode
from storage.clock import ManualClock

KEY = SharePartitionKey("g", uuid.UUID(int=7), 0)
NODE = 1


async def test_an_alter_of_a_share_partition_without_state_fences_its_stale_leader() -> None:
    store = ShareStateStore(MemoryCoordinatorLog(), ManualClock())
    await store.load()
    persister = ClusterSharePersister(
        NODE, store, InterBrokerClient(lambda node_id: None, client_id="test"),
        leader_of=lambda partition: (NODE, 3), topic_id=lambda name: uuid.UUID(int=9), timeout_s=1.0)
    # The data partition's leader reads the share partition: no state yet.
    assert await persister.read(KEY) is None
    # The group empties and its offsets are altered (broker/handlers/share_group_offsets.py).
    found = await persister.read_summary(KEY)
    assert found is None
    await persister.initialize(KEY, next_state_epoch(found), 5)
    # What the leader still holds in memory is stale: its write is fenced, the altered state kept.
    with pytest.raises(CoordinatorLogError) as fenced:
        await persister.write(KEY, 0, [PersistedBatch(0, 2, RecordState.ACKNOWLEDGED, 1)])
    assert fenced.value.error is ErrorCode.FENCED_STATE_EPOCH
    state = store.read(KEY)
    assert state is not None and (state.start_offset, state.batches, state.state_epoch) == (5, (), 1)
    # Read again, the leader writes under the new state epoch.
    again = await persister.read(KEY)
    assert again is not None and again.start_offset == 5
    await persister.write(KEY, 5, [PersistedBatch(5, 6, RecordState.ACKNOWLEDGED, 1)])
    after = store.read(KEY)
    assert after is not None and (after.start_offset, after.batches, after.state_epoch) == (
        5, (PersistedBatch(5, 6, RecordState.ACKNOWLEDGED, 1),), 1)
