"""The classic group state machine through every transition, driven by a ManualClock."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Any

import pytest

from coordinator.group.api import CommitOffsets, CommitTxnOffsets, LeavingMember, MemberHeartbeat
from coordinator.group.classic.states import GroupState, IllegalStateTransition, check_transition
from coordinator.group.coordinator import GroupCoordinator
from coordinator.group.offsets import OffsetAndMetadata
from coordinator.log import CoordinatorLogError, LogRecord
from coordinator.partitioning import java_string_hashcode, partition_for
from protocol.errors import ErrorCode as E
from tests.unit.coordinator.group.group_harness import Harness, done, subscription

# --- pure pieces ------------------------------------------------------------------------


def test_transition_table() -> None:
    S = GroupState
    allowed = {
        (S.EMPTY, S.PREPARING_REBALANCE), (S.PREPARING_REBALANCE, S.COMPLETING_REBALANCE),
        (S.PREPARING_REBALANCE, S.EMPTY), (S.COMPLETING_REBALANCE, S.STABLE),
        (S.COMPLETING_REBALANCE, S.PREPARING_REBALANCE), (S.STABLE, S.PREPARING_REBALANCE),
    } | {(s, S.DEAD) for s in S}
    for a in S:
        for b in S:
            if (a, b) in allowed:
                check_transition(a, b)
            else:
                with pytest.raises(IllegalStateTransition):
                    check_transition(a, b)


def test_coordinator_partition_matches_kafka() -> None:
    assert java_string_hashcode("hello") == 99162322
    assert java_string_hashcode("polygenelubricants") == -(2**31)
    assert partition_for("polygenelubricants", 50) == 0  # Utils.abs(MIN_VALUE) is 0
    assert partition_for("my-group", 50) == abs(java_string_hashcode("my-group")) % 50


# --- joining ------------------------------------------------------------------------------


async def test_single_member_empty_to_stable(h: Harness) -> None:
    t = h.join()
    await h.settle()
    group = h.coord.groups["g"]
    assert group.state is GroupState.PREPARING_REBALANCE
    assert not t.done()  # the initial delay runs from the clock
    await h.advance(0)
    r = await done(t)
    assert r.error == E.NONE and r.generation_id == 1 and r.leader_id == r.member_id
    assert r.member_id.startswith("client-") and r.protocol_name == "range"
    assert [m for m, _, _ in r.members] == [r.member_id]
    assert group.state is GroupState.COMPLETING_REBALANCE
    s = await done(h.sync("g", 1, r.member_id, {r.member_id: b"A"}))
    assert s.error == E.NONE and s.assignment == b"A"
    assert group.state is GroupState.STABLE
    assert h.coord.heartbeat(MemberHeartbeat("g", 1, r.member_id, None)) == E.NONE


async def test_member_id_required_round_trip_and_pending_expiry(h: Harness) -> None:
    r = await done(h.join(require_known=True))
    assert r.error == E.MEMBER_ID_REQUIRED and r.member_id
    group = h.coord.groups["g"]
    assert r.member_id in group.pending_members
    t = h.join(member=r.member_id, require_known=True)
    await h.settle()
    await h.advance(0)
    r2 = await done(t)
    assert r2.error == E.NONE and r2.member_id == r.member_id
    # A pending member that never comes back is dropped after its session timeout.
    p = await done(h.join(require_known=True, session=5000))
    assert p.member_id in group.pending_members
    await h.advance(5000)
    assert p.member_id not in group.pending_members


async def test_join_errors(h: Harness) -> None:
    assert (await done(h.join(group=""))).error == E.INVALID_GROUP_ID
    assert (await done(h.join(session=10))).error == E.INVALID_SESSION_TIMEOUT
    assert (await done(h.join(member="nobody"))).error == E.UNKNOWN_MEMBER_ID
    assert (await done(h.join(protocol_type=""))).error == E.INCONSISTENT_GROUP_PROTOCOL
    await h.stable_group(1)
    assert (await done(h.join(protocol_type="connect"))).error == E.INCONSISTENT_GROUP_PROTOCOL
    assert (await done(h.join(protocols=[("other", b"")]))).error == E.INCONSISTENT_GROUP_PROTOCOL


async def test_load_in_progress() -> None:
    h = Harness()
    assert (await done(h.join())).error == E.COORDINATOR_LOAD_IN_PROGRESS
    assert (await done(h.sync("g", 1, "m"))).error == E.REBALANCE_IN_PROGRESS
    assert h.coord.heartbeat(MemberHeartbeat("g", 1, "m", None)) == E.NONE
    assert h.coord.fetch_offsets("g", None, False)[0] == E.COORDINATOR_LOAD_IN_PROGRESS
    await h.coord.stop()
    assert (await done(h.join())).error == E.COORDINATOR_NOT_AVAILABLE


async def test_group_max_size() -> None:
    h = Harness(max_size=1)
    await h.coord.load()
    await h.stable_group(1)
    assert (await done(h.join())).error == E.GROUP_MAX_SIZE_REACHED


async def test_protocol_selection_by_votes(h: Harness) -> None:
    a = h.join(protocols=[("roundrobin", b"1"), ("range", b"1")])
    b = h.join(protocols=[("range", b"2"), ("roundrobin", b"2")])
    c = h.join(protocols=[("range", b"3"), ("sticky", b"3")])
    await h.settle()
    await h.advance(0)
    results = [await done(t) for t in (a, b, c)]
    # roundrobin is not supported by c; range is the only candidate.
    assert {r.protocol_name for r in results} == {"range"}
    leader = next(r for r in results if r.leader_id == r.member_id)
    assert {md for _, _, md in leader.members} == {b"1", b"2", b"3"}


async def test_new_member_triggers_rebalance_and_rejoin(h: Harness) -> None:
    leader, = await h.stable_group(1)
    group = h.coord.groups["g"]
    t2 = h.join()
    await h.settle()
    assert group.state is GroupState.PREPARING_REBALANCE
    assert h.coord.heartbeat(MemberHeartbeat("g", 1, leader.member_id, None)) == E.REBALANCE_IN_PROGRESS
    assert (await done(h.sync("g", 1, leader.member_id))).error == E.REBALANCE_IN_PROGRESS
    t1 = h.join(member=leader.member_id)
    await h.settle()
    r1, r2 = await done(t1), await done(t2)  # everyone rejoined: no waiting for the timeout
    assert r1.generation_id == r2.generation_id == 2
    assert r1.leader_id == leader.member_id and len(r1.members) == 2 and r2.members == []
    assert group.state is GroupState.COMPLETING_REBALANCE
    # the follower's SyncGroup waits for the leader's
    f = h.sync("g", 2, r2.member_id)
    await h.settle()
    assert not f.done()
    ls = await done(h.sync("g", 2, r1.member_id, {r1.member_id: b"x", r2.member_id: b"y"}))
    assert ls.assignment == b"x" and (await done(f)).assignment == b"y"
    assert group.state is GroupState.STABLE


async def test_rebalance_timeout_removes_members_that_do_not_rejoin(h: Harness) -> None:
    a, b = await h.stable_group(2, rebalance=8000)
    group = h.coord.groups["g"]
    # a follower with changed metadata forces a rebalance
    t = h.join(member=b.member_id, protocols=[("range", subscription("t", "u"))], rebalance=8000)
    await h.settle()
    assert group.state is GroupState.PREPARING_REBALANCE and not t.done()
    await h.advance(7999)
    assert not t.done()
    await h.advance(1)
    r = await done(t)
    assert r.error == E.NONE and r.generation_id == 2
    assert list(group.members) == [b.member_id] and r.leader_id == b.member_id  # new leader elected
    assert h.coord.heartbeat(MemberHeartbeat("g", 3, a.member_id, None)) == E.UNKNOWN_MEMBER_ID


async def test_session_timeout_expires_member(h: Harness) -> None:
    a, b = await h.stable_group(2, session=6000)
    group = h.coord.groups["g"]
    await h.advance(4000)
    assert h.coord.heartbeat(MemberHeartbeat("g", 1, a.member_id, None)) == E.NONE
    await h.advance(2000)
    assert group.state is GroupState.PREPARING_REBALANCE  # b missed its heartbeats
    assert b.member_id not in group.members
    assert h.coord.heartbeat(MemberHeartbeat("g", 1, a.member_id, None)) == E.REBALANCE_IN_PROGRESS
    t = h.join(member=a.member_id, session=6000)
    await h.settle()
    r = await done(t)
    assert r.generation_id == 2 and [m for m, _, _ in r.members] == [a.member_id]


async def test_last_member_leaving_empties_group_and_writes_generation(h: Harness) -> None:
    a, = await h.stable_group(1)
    group = h.coord.groups["g"]
    err, errors = await h.coord.leave_group("g", [LeavingMember(a.member_id, None)])
    assert (err, errors) == (E.NONE, [E.NONE])
    await h.settle()
    assert group.state is GroupState.EMPTY and group.generation_id == 2
    assert h.coord.heartbeat(MemberHeartbeat("g", 2, a.member_id, None)) == E.UNKNOWN_MEMBER_ID
    assert await h.coord.leave_group("g", [LeavingMember("x", None)]) == (E.NONE, [E.UNKNOWN_MEMBER_ID])
    assert await h.coord.leave_group("nope", [LeavingMember("x", None)]) == (E.NONE, [E.UNKNOWN_MEMBER_ID])
    assert (await done(h.sync("g", 2, a.member_id))).error == E.UNKNOWN_MEMBER_ID


async def test_a_leave_that_empties_the_group_is_answered_once_the_empty_generation_is_durable(h: Harness) -> None:
    # A coordinator that takes over after the answer must not find the member that left.
    a, = await h.stable_group(1)
    h.log.append_gate = asyncio.Event()
    leaving = asyncio.ensure_future(h.coord.leave_group("g", [LeavingMember(a.member_id, None)]))
    for _ in range(10):
        await asyncio.sleep(0)
    assert not leaving.done()  # parked behind the empty generation's append
    h.log.append_gate.set()
    assert await leaving == (E.NONE, [E.NONE])
    again = GroupCoordinator(h.log, h.clock, h.coord.config)
    await again.load()
    try:
        loaded = again.groups["g"]
        assert (loaded.state, loaded.generation_id, loaded.members) == (GroupState.EMPTY, 2, {})
    finally:
        await again.stop()


async def test_a_leave_whose_empty_generation_fails_to_append_answers_the_write_error(h: Harness) -> None:
    a, = await h.stable_group(1)
    h.log.fail_with = E.NOT_LEADER_OR_FOLLOWER
    assert await h.coord.leave_group("g", [LeavingMember(a.member_id, None)]) == (E.NOT_COORDINATOR, [])


async def test_initial_rebalance_delay_waits_for_more_members() -> None:
    h = Harness(initial_rebalance_delay_ms=3000)
    await h.coord.load()
    a = h.join(rebalance=10_000)
    await h.settle()
    await h.advance(2000)
    b = h.join(rebalance=10_000)
    await h.settle()
    await h.advance(1000)  # first delay over, but a member arrived: wait again
    assert not a.done()
    await h.advance(2999)
    assert not a.done()
    await h.advance(1)
    ra, rb = await done(a), await done(b)
    assert ra.generation_id == rb.generation_id == 1
    assert len(next(r for r in (ra, rb) if r.members).members) == 2


async def test_pending_sync_timeout_removes_silent_members(h: Harness) -> None:
    a = h.join(rebalance=5000)
    b = h.join(rebalance=5000)
    await h.settle()
    await h.advance(0)
    ra, rb = await done(a), await done(b)
    leader, follower = (ra, rb) if ra.leader_id == ra.member_id else (rb, ra)
    await done(h.sync("g", 1, leader.member_id, {leader.member_id: b"l"}))
    group = h.coord.groups["g"]
    assert group.state is GroupState.STABLE
    await h.advance(5000)  # the follower never synced
    assert follower.member_id not in group.members
    assert group.state is GroupState.PREPARING_REBALANCE


async def test_sync_errors(h: Harness) -> None:
    a, = await h.stable_group(1)
    assert (await done(h.sync("g", 1, "who"))).error == E.UNKNOWN_MEMBER_ID
    assert (await done(h.sync("g", 7, a.member_id))).error == E.ILLEGAL_GENERATION
    assert (await done(h.sync("g", 1, a.member_id, protocol_type="connect"))).error == E.INCONSISTENT_GROUP_PROTOCOL
    assert (await done(h.sync("g", 1, a.member_id, protocol_name="roundrobin"))).error == E.INCONSISTENT_GROUP_PROTOCOL
    ok = await done(h.sync("g", 1, a.member_id, protocol_type="consumer", protocol_name="range"))
    assert ok.error == E.NONE and ok.assignment == a.member_id.encode()
    assert (await done(h.sync("nope", 1, a.member_id))).error == E.UNKNOWN_MEMBER_ID
    assert h.coord.heartbeat(MemberHeartbeat("g", 2, a.member_id, None)) == E.ILLEGAL_GENERATION


async def test_failed_assignment_write_keeps_group_out_of_stable(h: Harness) -> None:
    t = h.join()
    await h.settle()
    await h.advance(0)
    r = await done(t)
    h.log.fail_with = E.KAFKA_STORAGE_ERROR
    s = await done(h.sync("g", 1, r.member_id, {r.member_id: b"A"}))
    assert s.error == E.NOT_COORDINATOR
    group = h.coord.groups["g"]
    assert group.state is GroupState.PREPARING_REBALANCE and group.get(r.member_id).assignment == b""


# --- static membership ----------------------------------------------------------------------


async def test_static_member_rejoin_replaces_old_member_id(h: Harness) -> None:
    a, = await h.stable_group(1, instance="i-1")
    group = h.coord.groups["g"]
    log_size = len(h.log.partitions[h.coord.partition_for("g")])
    t = h.join(instance="i-1")
    await h.settle()
    r = await done(t)
    assert r.error == E.NONE and r.member_id != a.member_id and r.member_id.startswith("i-1-")
    assert r.generation_id == 1 and group.state is GroupState.STABLE  # no rebalance
    assert r.skip_assignment  # it leads, but must keep the current assignment
    assert len(h.log.partitions[h.coord.partition_for("g")]) == log_size + 1  # new id persisted
    assert h.coord.heartbeat(MemberHeartbeat("g", 1, a.member_id, "i-1")) == E.FENCED_INSTANCE_ID
    assert (await done(h.sync("g", 1, a.member_id, instance="i-1"))).error == E.FENCED_INSTANCE_ID
    assert (await done(h.join(member=a.member_id, instance="i-1"))).error == E.FENCED_INSTANCE_ID
    assert (await h.coord.leave_group("g", [LeavingMember(a.member_id, "i-1")]))[1] == [E.FENCED_INSTANCE_ID]
    s = await done(h.sync("g", 1, r.member_id, instance="i-1"))
    assert s.assignment == a.member_id.encode()  # the assignment carried over
    # Administrative removal by instance id alone.
    assert (await h.coord.leave_group("g", [LeavingMember("", "i-1")]))[1] == [E.NONE]
    assert (await h.coord.leave_group("g", [LeavingMember("", "i-1")]))[1] == [E.UNKNOWN_MEMBER_ID]


async def test_static_member_survives_rebalance_without_rejoining(h: Harness) -> None:
    _a, _b = await h.stable_group(2, instance=None)
    s = h.join(instance="s")
    await h.settle()
    # dynamic members a and b do not rejoin within the rebalance timeout: removed
    await h.advance(20_000)
    r = await done(s)
    group = h.coord.groups["g"]
    assert list(group.members) == [r.member_id] and r.generation_id == 2


async def test_static_replacement_write_failure_restores_old_member(h: Harness) -> None:
    a, = await h.stable_group(1, instance="i-1")
    h.log.fail_with = E.UNKNOWN_TOPIC_OR_PARTITION
    r = await done(h.join(instance="i-1"))
    assert r.error == E.COORDINATOR_NOT_AVAILABLE
    group = h.coord.groups["g"]
    assert list(group.members) == [a.member_id] and group.static_members == {"i-1": a.member_id}


# --- offsets -----------------------------------------------------------------------------


def om(offset: int, metadata: str = "") -> OffsetAndMetadata:
    return OffsetAndMetadata(offset=offset, metadata=metadata, commit_timestamp=0)


async def test_simple_commit_and_fetch(h: Harness) -> None:
    res = await h.coord.commit_offsets(CommitOffsets("simple", "", None, -1, {("t", 0): om(5, "m"), ("t", 1): om(7)}))
    assert set(res.values()) == {E.NONE}
    err, got = h.coord.fetch_offsets("simple", [("t", 0), ("t", 2)], False)
    assert err == E.NONE
    assert (got[("t", 0)].offset, got[("t", 0)].metadata) == (5, "m") and got[("t", 2)].offset == -1
    assert sorted(h.coord.fetch_offsets("simple", None, False)[1]) == [("t", 0), ("t", 1)]
    assert h.coord.fetch_offsets("unknown", [("t", 0)], False)[1][("t", 0)].offset == -1
    big = await h.coord.commit_offsets(CommitOffsets("simple", "", None, -1, {("t", 0): om(9, "x" * 5000)}))
    assert big == {("t", 0): E.OFFSET_METADATA_TOO_LARGE}


async def test_member_commit_checks_generation(h: Harness) -> None:
    assert await h.coord.commit_offsets(CommitOffsets("g", "m", None, 1, {("t", 0): om(1)})) == {("t", 0): E.ILLEGAL_GENERATION}
    a, = await h.stable_group(1)

    async def c(*args: Any) -> dict[tuple[str, int], E]:
        return await h.coord.commit_offsets(CommitOffsets(*args))

    assert await c("g", a.member_id, None, 1, {("t", 0): om(1)}) == {("t", 0): E.NONE}
    assert await c("g", a.member_id, None, 0, {("t", 0): om(1)}) == {("t", 0): E.ILLEGAL_GENERATION}
    assert await c("g", "other", None, 1, {("t", 0): om(1)}) == {("t", 0): E.UNKNOWN_MEMBER_ID}
    assert await c("g", "", None, -1, {("t", 0): om(1)}) == {("t", 0): E.UNKNOWN_MEMBER_ID}
    t = h.join()  # rebalance: commits still allowed while PreparingRebalance
    await h.settle()
    assert await c("g", a.member_id, None, 1, {("t", 0): om(2)}) == {("t", 0): E.NONE}
    t1 = h.join(member=a.member_id)
    await h.settle()
    r = await done(t1)
    await done(t)
    assert await c("g", a.member_id, None, r.generation_id, {("t", 0): om(3)}) == {("t", 0): E.REBALANCE_IN_PROGRESS}


async def test_failed_commit_leaves_offsets_unchanged(h: Harness) -> None:
    await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(1)}))
    h.log.fail_with = E.KAFKA_STORAGE_ERROR
    assert await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(2)})) == {("t", 0): E.NOT_COORDINATOR}
    h.log.fail_with = E.MESSAGE_TOO_LARGE
    assert await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(2)})) == {("t", 0): E.INVALID_COMMIT_OFFSET_SIZE}
    h.log.fail_with = E.UNKNOWN_TOPIC_OR_PARTITION
    res = await h.coord.commit_offsets(CommitOffsets("new", "", None, -1, {("t", 0): om(2)}))
    assert res == {("t", 0): E.COORDINATOR_NOT_AVAILABLE} and "new" not in h.coord.groups
    assert h.coord.fetch_offsets("s", [("t", 0)], False)[1][("t", 0)].offset == 1


async def test_pending_transactional_offsets_are_unstable(h: Harness) -> None:
    await h.coord.commit_offsets(CommitOffsets("g", "", None, -1, {("t", 0): om(1)}))
    h.coord.prepare_txn_offsets("g", 42, {("t", 0): om(10), ("t", 1): om(11)})
    got = h.coord.fetch_offsets("g", [("t", 0), ("t", 1)], True)[1]
    assert got[("t", 0)].error == E.UNSTABLE_OFFSET_COMMIT and got[("t", 1)].error == E.UNSTABLE_OFFSET_COMMIT
    assert h.coord.fetch_offsets("g", [("t", 0)], False)[1][("t", 0)].offset == 1
    await h.coord.on_txn_marker(("__consumer_offsets", h.coord.partition_for("g")), 42, True)
    got = h.coord.fetch_offsets("g", [("t", 0), ("t", 1)], True)[1]
    assert (got[("t", 0)].offset, got[("t", 1)].offset) == (10, 11)
    h.coord.prepare_txn_offsets("g", 43, {("t", 0): om(99)})
    h.coord.complete_txn(43, commit=False)
    assert h.coord.fetch_offsets("g", [("t", 0)], True)[1][("t", 0)].offset == 10


async def test_state_survives_reload(h: Harness) -> None:
    a, b = await h.stable_group(2, instance=None)
    await h.coord.commit_offsets(CommitOffsets("g", a.member_id, None, 1, {("t", 0): om(5, "meta"), ("t", 1): om(6)}))
    await h.coord.commit_offsets(CommitOffsets("g", a.member_id, None, 1, {("t", 0): om(8)}))
    await h.coord.commit_offsets(CommitOffsets("solo", "", None, -1, {("u", 3): om(30)}))
    await h.coord.commit_offsets(CommitOffsets("gone", "", None, -1, {("u", 3): om(30)}))
    assert (await h.coord.delete_groups(["gone"])) == [("gone", E.NONE)]
    # a transaction still open in the log
    pid_key = h.log.partitions[h.coord.partition_for("solo")]
    from coordinator.group import records
    from protocol.messages.offset_commit_value import OffsetCommitValue
    h.log.place(h.coord.partition_for("solo"), LogRecord(
        -1, records.offset_key("solo", "u", 4), records.offset_value(OffsetCommitValue(offset=44)), 7, True))
    assert pid_key

    from coordinator.group.coordinator import GroupCoordinator
    fresh = GroupCoordinator(h.log, h.clock, h.coord.config)
    await fresh.load()
    group = fresh.groups["g"]
    assert group.state is GroupState.STABLE and group.generation_id == 1
    assert set(group.members) == {a.member_id, b.member_id} and group.leader_id == a.member_id
    assert group.get(b.member_id).assignment == b.member_id.encode()
    got = fresh.fetch_offsets("g", None, False)[1]
    assert (got[("t", 0)].offset, got[("t", 1)].offset) == (8, 6)
    assert fresh.fetch_offsets("solo", [("u", 3)], False)[1][("u", 3)].offset == 30
    assert fresh.fetch_offsets("solo", [("u", 4)], True)[1][("u", 4)].error == E.UNSTABLE_OFFSET_COMMIT
    assert "gone" not in fresh.groups
    # members of a loaded group keep their session: heartbeats work, silence expires them
    h.clock.advance(5000)
    fresh.tick()
    assert fresh.heartbeat(MemberHeartbeat("g", 1, a.member_id, None)) == E.NONE
    h.clock.advance(5000)
    fresh.tick()
    assert list(fresh.groups["g"].members) == [a.member_id]
    assert fresh.groups["g"].state is GroupState.PREPARING_REBALANCE


async def test_offset_retention_for_empty_groups() -> None:
    h = Harness(offsets_retention_ms=60_000, offsets_retention_check_interval_ms=1000)
    await h.coord.load()
    a, = await h.stable_group(1)
    await h.coord.commit_offsets(CommitOffsets("g", a.member_id, None, 1, {("t", 0): om(5)}))
    await h.coord.commit_offsets(CommitOffsets("simple", "", None, -1, {("t", 0): OffsetAndMetadata(5, commit_timestamp=h.clock.now_ms())}))
    await h.advance(120_000)
    assert "g" in h.coord.groups  # Stable groups keep their offsets
    await h.coord.leave_group("g", [LeavingMember(a.member_id, None)])
    await h.settle()
    assert "simple" not in h.coord.groups  # expired by commit time
    await h.advance(30_000)
    assert h.coord.fetch_offsets("g", [("t", 0)], False)[1][("t", 0)].offset == 5
    await h.advance(31_000)
    assert "g" not in h.coord.groups  # empty for longer than the retention: offsets and group go
    assert h.coord.describe_group("g").state == "Dead"


async def test_offset_delete(h: Harness) -> None:
    a, = await h.stable_group(1)
    await h.coord.commit_offsets(CommitOffsets("g", a.member_id, None, 1, {("t", 0): om(1), ("other", 0): om(2)}))
    err, res = await h.coord.delete_offsets("g", [("t", 0), ("other", 0)])
    assert err == E.NONE and res == {("t", 0): E.GROUP_SUBSCRIBED_TO_TOPIC, ("other", 0): E.NONE}
    assert h.coord.fetch_offsets("g", [("other", 0)], False)[1][("other", 0)].offset == -1
    assert (await h.coord.delete_offsets("nope", [("t", 0)]))[0] == E.GROUP_ID_NOT_FOUND
    await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(1)}))
    assert (await h.coord.delete_offsets("s", [("t", 0)])) == (E.NONE, {("t", 0): E.NONE})
    assert "s" not in h.coord.groups  # Empty and no offsets left


# --- administration ----------------------------------------------------------------------


async def test_describe_list_delete(h: Harness) -> None:
    a, = await h.stable_group(1, client_id="cli")
    await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(1)}))
    d = h.coord.describe_group("g")
    assert (d.state, d.protocol_type, d.protocol) == ("Stable", "consumer", "range")
    m = d.members[0]
    assert (m.member_id, m.client_id, m.client_host, m.assignment) == (a.member_id, "cli", "/127.0.0.1",
                                                                       a.member_id.encode())
    assert m.metadata == subscription("t")
    assert h.coord.describe_group("missing").state == "Dead"
    assert {g.group_id for g in h.coord.list_groups([], [])[1]} == {"g", "s"}
    assert [g.group_id for g in h.coord.list_groups(["stable"], [])[1]] == ["g"]
    assert [g.group_id for g in h.coord.list_groups(["Empty"], ["classic"])[1]] == ["s"]
    assert h.coord.list_groups([], ["consumer"])[1] == []
    res = await h.coord.delete_groups(["g", "s", "missing"])
    assert res == [("g", E.NON_EMPTY_GROUP), ("s", E.NONE), ("missing", E.GROUP_ID_NOT_FOUND)]
    assert "s" not in h.coord.groups


async def test_delete_group_write_failure_keeps_group(h: Harness) -> None:
    await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(1)}))
    h.log.fail_with = E.KAFKA_STORAGE_ERROR
    assert await h.coord.delete_groups(["s"]) == [("s", E.NOT_COORDINATOR)]
    assert "s" in h.coord.groups


async def test_stop_answers_waiting_joins(h: Harness) -> None:
    t = h.join()
    await h.settle()
    await h.coord.stop()
    assert (await done(t)).error == E.NOT_COORDINATOR


async def test_log_error_type() -> None:
    err = CoordinatorLogError(E.KAFKA_STORAGE_ERROR)
    assert err.error is E.KAFKA_STORAGE_ERROR
    await asyncio.sleep(0)


# --- requests cancelled while their record is appended (the client left) -----------------


async def _cancel_while_appending(h: Harness, aw: Awaitable[Any]) -> None:
    h.log.append_gate = asyncio.Event()
    task = asyncio.ensure_future(aw)
    for _ in range(5):
        await asyncio.sleep(0)
    assert not task.done()  # parked in the append
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def test_cancelled_commit_takes_effect_once_durable_and_leaves_nothing_pending(h: Harness) -> None:
    await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(1)}))
    await _cancel_while_appending(h, h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(2)})))
    # The write is still in flight: a stable fetch must wait for it.
    assert h.coord.fetch_offsets("s", [("t", 0)], True)[1][("t", 0)].error == E.UNSTABLE_OFFSET_COMMIT
    assert h.log.append_gate is not None
    h.log.append_gate.set()
    await h.settle()
    got = h.coord.fetch_offsets("s", [("t", 0)], True)[1][("t", 0)]
    assert (got.error, got.offset) == (E.NONE, 2)  # durable, so it counts though nobody heard


async def test_cancelled_commit_whose_append_fails_leaves_nothing_pending(h: Harness) -> None:
    await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(1)}))
    h.log.fail_with = E.KAFKA_STORAGE_ERROR
    await _cancel_while_appending(h, h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(2)})))
    assert h.log.append_gate is not None
    h.log.append_gate.set()
    await h.settle()
    got = h.coord.fetch_offsets("s", [("t", 0)], True)[1][("t", 0)]
    assert (got.error, got.offset) == (E.NONE, 1)


async def test_cancelled_txn_commit_is_held_like_a_completed_one(h: Harness) -> None:
    commit = h.coord.commit_txn_offsets(CommitTxnOffsets("g", 42, 0, "", None, -1, {("t", 0): om(7)}))
    await _cancel_while_appending(h, commit)
    assert h.log.append_gate is not None
    h.log.append_gate.set()
    await h.settle()
    assert not h.coord.offsets.txn_appends
    # Appended, so held for the transaction exactly as if the client had heard the answer.
    assert h.coord.fetch_offsets("g", [("t", 0)], True)[1][("t", 0)].error == E.UNSTABLE_OFFSET_COMMIT
    await h.coord.on_txn_marker(("__consumer_offsets", h.coord.partition_for("g")), 42, True)
    got = h.coord.fetch_offsets("g", [("t", 0)], True)[1][("t", 0)]
    assert (got.error, got.offset) == (E.NONE, 7)


async def test_cancelled_delete_groups_still_drops_the_group(h: Harness) -> None:
    await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(1)}))
    await _cancel_while_appending(h, h.coord.delete_groups(["s"]))
    assert h.log.append_gate is not None
    h.log.append_gate.set()
    await h.settle()
    assert "s" not in h.coord.groups  # the tombstones are durable: memory agrees with the log
