"""Share group membership in `__consumer_offsets` (Kafka's share group records 10-14): written
before a heartbeat is answered, replayed at load, so that a restarted coordinator keeps the
group's epochs and members, with their sessions running again; a failed write changes
nothing."""

from __future__ import annotations

import uuid

from coordinator.log import MemoryCoordinatorLog
from coordinator.share import membership_records as mr
from coordinator.share.coordinator import ShareCoordinator
from coordinator.share.group import ShareTopic
from coordinator.share.heartbeat import ShareHeartbeat, ShareHeartbeatResult
from protocol.errors import ErrorCode
from storage.clock import ManualClock

TOPIC = ShareTopic(uuid.UUID(int=3), 2)
TOPICS = {"t": TOPIC}
NAMES = {TOPIC.topic_id: "t"}


async def _coordinator(offsets: MemoryCoordinatorLog, clock: ManualClock | None = None) -> ShareCoordinator:
    share = ShareCoordinator(MemoryCoordinatorLog(), clock or ManualClock(), membership_log=offsets,
                             topic_names=lambda: NAMES)
    await share.load()
    return share


async def _beat(share: ShareCoordinator, member: str, epoch: int, topics: list[str] | None = None,
                group: str = "g") -> ShareHeartbeatResult:
    return await share.heartbeat(
        ShareHeartbeat(group, member, epoch, subscribed_topic_names=topics, client_id=f"c-{member}",
                       client_host="/127.0.0.1"), TOPICS)


def _types(offsets: MemoryCoordinatorLog) -> list[tuple[int, bool]]:
    """(record type, tombstone) of every record written, in order."""
    return [(mr.record_type(r.key), r.value is None)
            for p in offsets.partitions.values() for r in p if r.key is not None]


async def test_a_restart_keeps_the_epochs_and_members() -> None:
    offsets = MemoryCoordinatorLog(num_partitions=4)
    share = await _coordinator(offsets)
    m1 = await _beat(share, "m1", 0, ["t"])
    m2 = await _beat(share, "m2", 0, ["t"])
    m1 = await _beat(share, "m1", m1.member_epoch)
    assert (m1.member_epoch, m2.member_epoch) == (2, 2)
    before = share.membership.groups["g"]

    again = await _coordinator(offsets)
    group = again.membership.groups["g"]
    assert (group.group_epoch, group.assignment_epoch) == (before.group_epoch, before.assignment_epoch) == (2, 2)
    assert sorted(group.members) == ["m1", "m2"]
    for member_id in ("m1", "m2"):
        loaded, was = group.members[member_id], before.members[member_id]
        assert (loaded.member_epoch, loaded.assignment, loaded.subscribed_topics, loaded.client_id,
                loaded.client_host) == (was.member_epoch, was.assignment, was.subscribed_topics, was.client_id,
                                        was.client_host)
    assert group.members["m1"].assignment | group.members["m2"].assignment == {("t", 0), ("t", 1)}
    assert group.target == before.target
    # The members heartbeat on at their epochs: nothing to re-join, the epoch stays.
    r1 = await _beat(again, "m1", 2)
    assert (r1.error, r1.member_epoch, r1.assignment) == (ErrorCode.NONE, 2, None)
    assert group.group_epoch == 2


async def test_steady_heartbeats_write_nothing_and_a_leave_writes_tombstones() -> None:
    offsets = MemoryCoordinatorLog(num_partitions=1)
    share = await _coordinator(offsets)
    m1 = await _beat(share, "m1", 0, ["t"])
    # a join: member metadata, group epoch, target, target epoch, current assignment
    assert _types(offsets) == [(10, False), (11, False), (13, False), (12, False), (14, False)]
    written = len(_types(offsets))
    for _ in range(3):
        assert (await _beat(share, "m1", m1.member_epoch)).error is ErrorCode.NONE
    assert len(_types(offsets)) == written
    leave = await _beat(share, "m1", -1)
    assert leave.error is ErrorCode.NONE
    await share.stop()
    assert _types(offsets)[written:] == [(11, False), (14, True), (13, True), (10, True)]
    again = await _coordinator(offsets)
    group = again.membership.groups["g"]
    assert (group.members, group.group_epoch) == ({}, 2)


async def test_sessions_start_again_after_a_restart() -> None:
    offsets = MemoryCoordinatorLog(num_partitions=1)
    share = await _coordinator(offsets)
    await _beat(share, "m1", 0, ["t"])
    clock = ManualClock()
    again = await _coordinator(offsets, clock)
    clock.advance(44_999)
    assert "m1" in again.membership.groups["g"].members
    clock.advance(1)
    assert again.membership.groups["g"].members == {}
    await again.stop()  # the timeout's write
    third = await _coordinator(offsets)
    assert third.membership.groups["g"].members == {}
    assert third.membership.groups["g"].group_epoch == 2


async def test_a_failed_write_answers_an_error_and_changes_nothing() -> None:
    offsets = MemoryCoordinatorLog(num_partitions=1)
    share = await _coordinator(offsets)
    m1 = await _beat(share, "m1", 0, ["t"])
    offsets.fail_next = 1
    failed = await _beat(share, "m2", 0, ["t"])
    assert failed.error is ErrorCode.COORDINATOR_NOT_AVAILABLE
    group = share.membership.groups["g"]
    assert (sorted(group.members), group.group_epoch) == (["m1"], 1)
    assert (await _beat(share, "m1", m1.member_epoch)).error is ErrorCode.NONE
    # m2 tries again and gets in; the log agrees with what was served
    assert (await _beat(share, "m2", 0, ["t"])).member_epoch == 2
    again = await _coordinator(offsets)
    assert sorted(again.membership.groups["g"].members) == ["m1", "m2"]


async def test_deleting_an_empty_group_writes_its_tombstones() -> None:
    offsets = MemoryCoordinatorLog(num_partitions=1)
    share = await _coordinator(offsets)
    m1 = await _beat(share, "m1", 0, ["t"])
    await _beat(share, "m1", -1)
    assert m1.error is ErrorCode.NONE
    assert await share.delete_group("g") is ErrorCode.NONE
    await share.stop()
    assert _types(offsets)[-2:] == [(12, True), (11, True)]
    again = await _coordinator(offsets)
    assert "g" not in again.membership.groups
