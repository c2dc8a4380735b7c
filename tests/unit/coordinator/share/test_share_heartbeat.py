"""ShareGroupHeartbeat membership: joins, epochs, fencing, leaving, session timeouts (on a
ManualClock), subscription and partition changes."""

from __future__ import annotations

import uuid

import pytest

from coordinator.share.group import ShareGroupState, ShareTopic
from coordinator.share.heartbeat import (
    ShareGroupMembership,
    ShareHeartbeat,
    ShareHeartbeatResult,
    ShareMembershipConfig,
)
from protocol.errors import ErrorCode
from storage.clock import ManualClock

T1 = uuid.UUID(int=1)
T2 = uuid.UUID(int=2)
TOPICS = {"t1": ShareTopic(T1, 1), "t2": ShareTopic(T2, 3)}


def make(**config: int) -> tuple[ManualClock, ShareGroupMembership, list[tuple[str, str]]]:
    clock = ManualClock()
    removed: list[tuple[str, str]] = []
    membership = ShareGroupMembership(
        clock, ShareMembershipConfig(**config), on_member_removed=lambda g, m: removed.append((g, m))
    )
    return clock, membership, removed


def join(sm: ShareGroupMembership, member: str, *topics: str, group: str = "g") -> ShareHeartbeatResult:
    return sm.heartbeat(ShareHeartbeat(group, member, 0, subscribed_topic_names=list(topics)), TOPICS)


def beat(sm: ShareGroupMembership, member: str, epoch: int, group: str = "g",
         topics: dict[str, ShareTopic] | None = None, subscribe: list[str] | None = None) -> ShareHeartbeatResult:
    return sm.heartbeat(ShareHeartbeat(group, member, epoch, subscribed_topic_names=subscribe), topics or TOPICS)


def test_first_member_joins_with_its_whole_assignment() -> None:
    _, sm, _ = make()
    r = join(sm, "m1", "t1", "t2")
    assert r == ShareHeartbeatResult(member_id="m1", member_epoch=1, heartbeat_interval_ms=5_000,
                                     assignment={T1: [0], T2: [0, 1, 2]})
    group = sm.groups["g"]
    assert (group.state, group.group_epoch, group.assignment_epoch) == (ShareGroupState.STABLE, 1, 1)
    # Nothing changed: no assignment in the answer, same epoch.
    assert beat(sm, "m1", 1) == ShareHeartbeatResult(member_id="m1", member_epoch=1, heartbeat_interval_ms=5_000)


def test_two_members_share_a_single_partition() -> None:
    _, sm, _ = make()
    join(sm, "m1", "t1")
    r2 = join(sm, "m2", "t1")
    assert (r2.member_epoch, r2.assignment) == (2, {T1: [0]})
    # m1 moves to epoch 2; its assignment is unchanged so none is sent.
    r1 = beat(sm, "m1", 1)
    assert (r1.error, r1.member_epoch, r1.assignment) == (ErrorCode.NONE, 2, None)


def test_a_new_member_takes_partitions_from_the_first() -> None:
    _, sm, _ = make()
    join(sm, "m1", "t2")
    r2 = join(sm, "m2", "t2")
    r1 = beat(sm, "m1", 1)
    assert r1.member_epoch == 2 and r1.assignment is not None and r2.assignment is not None
    got = sorted(r1.assignment[T2] + r2.assignment[T2])
    assert got == [0, 1, 2]
    assert sorted([len(r1.assignment[T2]), len(r2.assignment[T2])]) == [1, 2]


def test_stale_epoch_is_fenced() -> None:
    _, sm, _ = make()
    join(sm, "m1", "t1")
    join(sm, "m2", "t1")
    beat(sm, "m1", 1)
    r = beat(sm, "m1", 1)
    assert r.error == ErrorCode.FENCED_MEMBER_EPOCH
    assert beat(sm, "m1", 3).error == ErrorCode.FENCED_MEMBER_EPOCH
    assert beat(sm, "m1", 2).error == ErrorCode.NONE


def test_unknown_member() -> None:
    _, sm, _ = make()
    assert beat(sm, "ghost", 4).error == ErrorCode.UNKNOWN_MEMBER_ID
    join(sm, "m1", "t1")
    assert beat(sm, "ghost", 1).error == ErrorCode.UNKNOWN_MEMBER_ID
    assert beat(sm, "ghost", -1).error == ErrorCode.UNKNOWN_MEMBER_ID


@pytest.mark.parametrize(
    ("req", "message"),
    [
        (ShareHeartbeat("", "m1", 0, subscribed_topic_names=["t1"]), "GroupId can't be empty."),
        (ShareHeartbeat("g", "", 0, subscribed_topic_names=["t1"]), "MemberId can't be empty."),
        (ShareHeartbeat("g", "m1", -2), "MemberEpoch -2 is invalid."),
        (ShareHeartbeat("g", "m1", 0), "SubscribedTopicNames must be set in first request."),
        (ShareHeartbeat("g", "m1", 0, subscribed_topic_names=[]), "SubscribedTopicNames must be set in first request."),
    ],
)
def test_invalid_requests(req: ShareHeartbeat, message: str) -> None:
    _, sm, _ = make()
    assert sm.heartbeat(req, TOPICS) == ShareHeartbeatResult(error=ErrorCode.INVALID_REQUEST, error_message=message)
    assert sm.groups == {}


def test_leave() -> None:
    _, sm, removed = make()
    join(sm, "m1", "t1")
    join(sm, "m2", "t1")
    assert beat(sm, "m2", -1) == ShareHeartbeatResult(member_id="m2", member_epoch=-1)
    assert removed == [("g", "m2")]
    group = sm.groups["g"]
    assert set(group.members) == {"m1"}
    assert group.group_epoch == 3
    beat(sm, "m1", 1)
    assert beat(sm, "m1", -1).member_epoch == -1
    assert group.state is ShareGroupState.EMPTY


def test_session_timeout_removes_a_silent_member() -> None:
    clock, sm, removed = make(session_timeout_ms=45_000)
    join(sm, "m1", "t1")
    join(sm, "m2", "t1")
    clock.advance(30_000)
    beat(sm, "m1", 1)
    clock.advance(15_000)
    assert removed == [("g", "m2")]
    assert set(sm.groups["g"].members) == {"m1"}
    clock.advance(29_999)
    assert removed == [("g", "m2")]
    clock.advance(1)
    assert removed == [("g", "m2"), ("g", "m1")]
    assert sm.groups["g"].state is ShareGroupState.EMPTY


def test_group_max_size() -> None:
    _, sm, _ = make(max_size=2)
    join(sm, "m1", "t1")
    join(sm, "m2", "t1")
    assert join(sm, "m3", "t1").error == ErrorCode.GROUP_MAX_SIZE_REACHED
    assert set(sm.groups["g"].members) == {"m1", "m2"}


def test_subscription_change_bumps_the_epoch() -> None:
    _, sm, _ = make()
    join(sm, "m1", "t1")
    r = beat(sm, "m1", 1, subscribe=["t1", "t2"])
    assert (r.member_epoch, r.assignment) == (2, {T1: [0], T2: [0, 1, 2]})
    r = beat(sm, "m1", 2, subscribe=["t2", "t1"])
    assert (r.member_epoch, r.assignment) == (2, None)


def test_new_partitions_bump_the_epoch() -> None:
    _, sm, _ = make()
    join(sm, "m1", "t1")
    grown = {"t1": ShareTopic(T1, 2), "t2": TOPICS["t2"]}
    r = beat(sm, "m1", 1, topics=grown)
    assert (r.member_epoch, r.assignment) == (2, {T1: [0, 1]})


def test_subscribing_to_a_missing_topic_gives_nothing_until_it_exists() -> None:
    _, sm, _ = make()
    r = join(sm, "m1", "later")
    assert (r.member_epoch, r.assignment) == (1, {})
    created = {**TOPICS, "later": ShareTopic(uuid.UUID(int=9), 1)}
    r = beat(sm, "m1", 1, topics=created)
    assert (r.member_epoch, r.assignment) == (2, {uuid.UUID(int=9): [0]})


def test_rejoin_with_epoch_zero_is_sent_its_assignment_again() -> None:
    _, sm, _ = make()
    join(sm, "m1", "t1")
    r = join(sm, "m1", "t1")
    assert (r.error, r.member_epoch, r.assignment) == (ErrorCode.NONE, 1, {T1: [0]})


def test_groups_are_independent() -> None:
    _, sm, _ = make()
    join(sm, "m1", "t1", group="a")
    join(sm, "m1", "t1", group="b")
    assert beat(sm, "m1", -1, group="a").member_epoch == -1
    assert set(sm.groups["b"].members) == {"m1"}
