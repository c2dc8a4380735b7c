"""The share coordinator: a member that leaves or times out has its records released (and
its share session closed); records made available again wake waiting fetches; share groups
follow the group coordinator's partitions of `__consumer_offsets`."""

from __future__ import annotations

import asyncio
import uuid

from coordinator.log import MemoryCoordinatorLog
from coordinator.share.config import SharePartitionConfig
from coordinator.share.coordinator import ShareCoordinator
from coordinator.share.group import ShareTopic
from coordinator.share.heartbeat import ShareHeartbeat
from coordinator.share.partition import AcquireMode
from coordinator.share.record_state import RecordState
from coordinator.share.records import SharePartitionKey
from protocol.errors import ErrorCode
from storage.clock import ManualClock

TOPIC = ShareTopic(uuid.UUID(int=3), 1)
KEY = SharePartitionKey("g", TOPIC.topic_id, 0)


async def _coordinator() -> tuple[ManualClock, ShareCoordinator]:
    clock = ManualClock()
    share = ShareCoordinator(MemoryCoordinatorLog(), clock)
    await share.load()
    share.partition(KEY, lambda: 0, SharePartitionConfig())
    return clock, share


def _join(share: ShareCoordinator, member: str) -> None:
    result = share.membership.heartbeat(ShareHeartbeat("g", member, 0, subscribed_topic_names=["t"]), {"t": TOPIC})
    assert result.error is ErrorCode.NONE


async def _settle(share: ShareCoordinator) -> None:
    await share.stop()


async def test_a_member_that_leaves_releases_its_records() -> None:
    _, share = await _coordinator()
    _join(share, "m1")
    share.sessions.open("g", "m1")
    got = await share.acquire(KEY, "m1", [(0, 4)], 10, AcquireMode.BATCH_OPTIMIZED, 5)
    assert [(a.first_offset, a.last_offset) for a in got] == [(0, 4)]
    woken = share.change_event()
    leave = share.membership.heartbeat(ShareHeartbeat("g", "m1", -1), {"t": TOPIC})
    assert leave.error is ErrorCode.NONE
    await _settle(share)
    assert share.partitions.partitions[KEY].state_of(0) == (RecordState.AVAILABLE, 1)
    assert woken.is_set()
    assert ("g", "m1") not in share.sessions.sessions


async def test_a_member_whose_session_times_out_releases_its_records() -> None:
    clock, share = await _coordinator()
    _join(share, "m1")
    await share.acquire(KEY, "m1", [(0, 1)], 10, AcquireMode.BATCH_OPTIMIZED, 2)
    clock.advance(45_000)
    await _settle(share)
    assert share.partitions.partitions[KEY].state_of(1) == (RecordState.AVAILABLE, 1)


async def test_acknowledging_where_nothing_was_acquired_is_an_invalid_record_state() -> None:
    _, share = await _coordinator()
    other = SharePartitionKey("g", TOPIC.topic_id, 5)
    assert await share.acknowledge(other, "m", []) is ErrorCode.INVALID_RECORD_STATE


async def test_a_lock_timeout_wakes_waiting_fetches() -> None:
    clock, share = await _coordinator()
    await share.acquire(KEY, "m1", [(0, 0)], 10, AcquireMode.BATCH_OPTIMIZED, 1)
    woken = share.change_event()
    clock.advance(30_000)
    await asyncio.wait_for(woken.wait(), 1)
    assert share.partitions.partitions[KEY].state_of(0) == (RecordState.AVAILABLE, 1)


async def test_share_groups_follow_the_partitions_of_the_group_coordinator() -> None:
    # Two brokers' share coordinators over one __consumer_offsets: the group moves from the
    # first to the second, which reads it back; the first answers what the group
    # coordinator answers for a partition it gave up.
    clock, offsets = ManualClock(), MemoryCoordinatorLog()
    names = {TOPIC.topic_id: "t"}
    first = ShareCoordinator(MemoryCoordinatorLog(), clock, membership_log=offsets, topic_names=lambda: names)
    second = ShareCoordinator(MemoryCoordinatorLog(), clock, membership_log=offsets, topic_names=lambda: names)
    joined = await first.heartbeat(ShareHeartbeat("g", "m1", 0, subscribed_topic_names=["t"]), {"t": TOPIC})
    assert (joined.error, joined.member_epoch) == (ErrorCode.NONE, 1)
    partition = first.membership_store.partition_for("g")

    first.unload_groups(partition)
    first.group_status = lambda group_id: ErrorCode.NOT_COORDINATOR
    assert "g" not in first.membership.groups
    refused = await first.heartbeat(ShareHeartbeat("g", "m1", 1), {"t": TOPIC})
    assert refused.error is ErrorCode.NOT_COORDINATOR

    await second.load_groups(partition)
    again = await second.heartbeat(ShareHeartbeat("g", "m1", 1), {"t": TOPIC})
    assert (again.error, again.member_epoch) == (ErrorCode.NONE, 1)
    assert sorted(second.membership.groups["g"].members) == ["m1"]
    # Loading a partition drops what it no longer holds (a group deleted elsewhere).
    await first.load_groups(partition)
    assert sorted(first.membership.groups["g"].members) == ["m1"]
    assert await second.delete_group("g") is ErrorCode.NON_EMPTY_GROUP
    left = await second.heartbeat(ShareHeartbeat("g", "m1", -1), {"t": TOPIC})
    assert left.error is ErrorCode.NONE
    assert await second.delete_group("g") is ErrorCode.NONE
    await first.load_groups(partition)
    assert "g" not in first.membership.groups


async def test_a_member_joining_while_its_group_is_deleted_keeps_the_group() -> None:
    # The group is empty when DeleteGroups checks it, and a member joins while its share
    # partitions' state is being deleted: the group is not deleted under the member, as
    # Kafka's GroupMetadataManager.deleteGroups validates the group again at its write.
    _, share = await _coordinator()
    _join(share, "m1")
    assert share.membership.heartbeat(ShareHeartbeat("g", "m1", -1), {"t": TOPIC}).error is ErrorCode.NONE
    held = share.partitions.lock(KEY)
    await held.acquire()
    deleting = asyncio.create_task(share.delete_group("g"))
    while not held._waiters:  # the deletion waits for the share partition
        await asyncio.sleep(0)
    joined = await share.heartbeat(ShareHeartbeat("g", "m2", 0, subscribed_topic_names=["t"]), {"t": TOPIC})
    assert joined.error is ErrorCode.NONE
    held.release()
    assert await deleting is ErrorCode.NON_EMPTY_GROUP
    assert sorted(share.membership.groups["g"].members) == ["m2"]
    await _settle(share)


async def test_deleting_a_group_keeps_no_lock_of_the_share_partitions_it_named() -> None:
    # In a cluster DeleteGroups names every partition of every topic (broker/handlers/
    # delete_groups.py): a lock kept for each would grow with every group deleted.
    _, share = await _coordinator()
    elsewhere = [SharePartitionKey("g", uuid.UUID(int=i), p) for i in range(10, 20) for p in range(100)]
    assert await share.delete_group("g", elsewhere) is ErrorCode.NONE
    assert not share.partitions._locks
    await _settle(share)
