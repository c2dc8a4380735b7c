"""A group changes only by what reached the log: for every kind of group operation, an
append that fails leaves the groups and offsets as they were, answers Kafka's error for a
failed write, and a reload of the log rebuilds exactly what is served."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from coordinator.group.api import CommitOffsets, CommitTxnOffsets, LeavingMember, MemberHeartbeat
from coordinator.group.classic.states import GroupState
from coordinator.group.consumer.heartbeat import ConsumerHeartbeat, ConsumerHeartbeatResult, TopicImage
from coordinator.group.coordinator import GroupCoordinator
from coordinator.group.offsets import OffsetAndMetadata
from protocol.errors import ErrorCode as E
from tests.unit.coordinator.group.group_harness import Harness, done

T_ID, U_ID = uuid.uuid4(), uuid.uuid4()
TOPICS = {"t": TopicImage(T_ID, 4), "u": TopicImage(U_ID, 3), "__consumer_offsets": TopicImage(uuid.uuid4(), 50, True)}


def _names() -> dict[uuid.UUID, str]:
    return {image.topic_id: name for name, image in TOPICS.items()}


def view(coord: GroupCoordinator) -> dict[Any, Any]:
    """What the coordinator serves, in the terms its records describe."""
    out: dict[Any, Any] = {}
    for gid, cg in coord.rt.consumer_groups.items():
        out["consumer", gid] = (
            cg.group_epoch, cg.assignment_epoch,
            {m: (x.member_epoch, x.assignment.previous_member_epoch if not x.static_left else None,
                 x.assignment.assigned, x.assignment.pending_revocation, x.assignment.state,
                 x.subscribed_topic_names, x.subscribed_topic_regex, x.server_assignor, x.rebalance_timeout_ms,
                 x.instance_id, x.rack_id, x.client_id, x.client_host, x.classic) for m, x in cg.members.items()},
            {m: tps for m, tps in cg.target.items()},
        )
    for gid, g in coord.rt.groups.items():
        offsets = {tp: (om.offset, om.metadata) for tp, om in g.offsets.committed.items()}
        pending = {pid: {tp: om.offset for tp, om in tps.items()} for pid, tps in g.offsets.pending_txn.items() if tps}
        if not g.members and not offsets and not pending:
            continue  # nothing a reload could rebuild or would need to
        state = g.state.value if g.state in (GroupState.STABLE, GroupState.EMPTY) else f"rebalancing {g.state.value}"
        out["classic", gid] = (
            state, g.generation_id if g.members else None, g.protocol_type if g.members else None,
            g.protocol_name if g.members else None,
            {m: (x.group_instance_id, x.assignment) for m, x in g.members.items()},
        )
        out["offsets", gid] = (offsets, pending)
    return out


async def reloaded(h: Harness) -> dict[Any, Any]:
    again = GroupCoordinator(h.log, h.clock, h.coord.config)
    again.rt.topic_names = _names
    await again.load()
    try:
        return view(again)
    finally:
        await again.stop()  # its timers run on the same clock: they must not write to the log


async def agrees(h: Harness) -> dict[Any, Any]:
    """The served state equals a reload of the log; returns it."""
    await h.settle()
    served = view(h.coord)
    assert served == await reloaded(h)
    return served


async def harness(**config: Any) -> Harness:
    h = Harness(**config)
    h.coord.rt.topic_names = _names
    h.coord.rt.topic_images = lambda: TOPICS
    await h.coord.load()
    return h


async def beat(h: Harness, member: str, epoch: int, *, owned: dict[uuid.UUID, list[int]] | None = None,
               instance: str | None = None, group: str = "g", topics: list[str] | None = None,
               regex: str | None = None, assignor: str | None = None) -> ConsumerHeartbeatResult:
    return await h.coord.consumer_heartbeat(ConsumerHeartbeat(
        group_id=group, member_id=member, member_epoch=epoch, instance_id=instance,
        rebalance_timeout_ms=30_000 if epoch == 0 else -1,
        subscribed_topic_names=topics if topics is not None else ["t"] if epoch == 0 else None,
        subscribed_topic_regex=regex, server_assignor=assignor, owned=owned,
    ), TOPICS)


def om(offset: int, h: Harness) -> OffsetAndMetadata:
    return OffsetAndMetadata(offset, commit_timestamp=h.clock.now_ms())


def parts(result: ConsumerHeartbeatResult) -> list[int]:
    assert result.assignment is not None
    return sorted(result.assignment.get(T_ID, []))


# --- KIP-848 heartbeats ---------------------------------------------------------------------


async def test_a_join_whose_append_fails_leaves_no_member() -> None:
    h = await harness()
    assert (await beat(h, "a", 0)).member_epoch == 1
    before = await agrees(h)
    h.log.fail_next = 1
    assert (await beat(h, "b", 0)).error is E.COORDINATOR_NOT_AVAILABLE
    assert await agrees(h) == before
    assert "b" not in h.coord.rt.consumer_groups["g"].members
    # The join retried once the log is back is a plain join.
    b = await beat(h, "b", 0)
    assert (b.error, b.member_epoch) == (E.NONE, 2)
    await agrees(h)


async def test_a_refused_first_join_leaves_no_group() -> None:
    h = await harness(consumer_max_size=0)
    assert (await beat(h, "a", 0)).error is E.GROUP_MAX_SIZE_REACHED
    assert await agrees(h) == {} and h.coord.list_groups([], [])[1] == []


async def test_a_leave_whose_append_fails_keeps_the_member() -> None:
    h = await harness()
    await beat(h, "a", 0)
    await beat(h, "b", 0)
    before = await agrees(h)
    h.log.fail_with = E.NOT_LEADER_OR_FOLLOWER
    assert (await beat(h, "a", -1)).error is E.NOT_COORDINATOR
    h.log.fail_with = None
    assert await agrees(h) == before
    assert (await beat(h, "a", -1)).error is E.NONE
    assert set(h.coord.rt.consumer_groups["g"].members) == {"b"}
    await agrees(h)


async def test_a_reconciliation_whose_append_fails_keeps_the_old_assignment() -> None:
    h = await harness()
    await beat(h, "a", 0)
    await beat(h, "b", 0)
    a = await beat(h, "a", 1)  # told to revoke half
    kept = parts(a)
    before = await agrees(h)
    h.log.fail_next = 1
    assert (await beat(h, "a", 1, owned={T_ID: kept})).error is E.COORDINATOR_NOT_AVAILABLE
    assert await agrees(h) == before
    member = h.coord.rt.consumer_groups["g"].members["a"]
    assert member.assignment.member_epoch == 1 and member.assignment.pending_revocation
    confirmed = await beat(h, "a", 1, owned={T_ID: kept})
    assert confirmed.member_epoch == 2
    await agrees(h)


async def test_a_static_member_back_under_a_new_id_keeps_its_target_in_the_log_too() -> None:
    h = await harness()
    await beat(h, "a", 0, instance="i1")
    await beat(h, "b", 0)
    a = await beat(h, "a", 1)
    await beat(h, "a", 1, owned={T_ID: parts(a)})
    assert (await beat(h, "a", -2, instance="i1")).member_epoch == -2
    h.log.fail_next = 1
    assert (await beat(h, "a2", 0, instance="i1")).error is E.COORDINATOR_NOT_AVAILABLE
    served = await agrees(h)
    assert "a2" not in served["consumer", "g"][2]
    back = await beat(h, "a2", 0, instance="i1")
    assert back.error is E.NONE and parts(back) == parts(a)
    served = await agrees(h)
    assert served["consumer", "g"][3]["a2"] == frozenset(("t", p) for p in parts(a))


async def test_an_expiry_whose_append_fails_keeps_the_member_and_retries() -> None:
    h = await harness()
    await beat(h, "a", 0)
    before = await agrees(h)
    h.log.fail_with = E.NOT_ENOUGH_REPLICAS
    await h.advance(h.coord.config.consumer_session_timeout_ms)
    assert await agrees(h) == before
    assert "a" in h.coord.rt.consumer_groups["g"].members
    h.log.fail_with = None
    # Kafka retries a timer whose write failed after a backoff.
    await h.advance(500)
    assert not h.coord.rt.consumer_groups["g"].members
    await agrees(h)


async def test_a_heartbeat_behind_a_failing_write_is_not_undone_with_it() -> None:
    h = await harness()
    await beat(h, "a", 0)
    gate = asyncio.Event()
    h.log.append_gate, h.log.fail_next = gate, 1
    failing = asyncio.ensure_future(beat(h, "b", 0))
    behind = asyncio.ensure_future(beat(h, "c", 0))
    for _ in range(10):
        await asyncio.sleep(0)
    assert not failing.done() and not behind.done()
    gate.set()
    assert (await failing).error is E.COORDINATOR_NOT_AVAILABLE
    c = await behind
    assert (c.error, c.member_epoch) == (E.NONE, 2)
    assert set(h.coord.rt.consumer_groups["g"].members) == {"a", "c"}
    await agrees(h)


async def test_an_expiry_queued_behind_the_members_heartbeat_does_not_fence_it() -> None:
    h = await harness()
    a = await beat(h, "a", 0)
    gate = asyncio.Event()
    h.log.append_gate = gate
    joining = asyncio.ensure_future(beat(h, "b", 0))  # its append waits
    alive = asyncio.ensure_future(beat(h, "a", a.member_epoch))  # queued behind it
    for _ in range(10):
        await asyncio.sleep(0)
    h.clock.advance(h.coord.config.consumer_session_timeout_ms)  # a's session ends meanwhile
    gate.set()
    assert (await joining).error is E.NONE and (await alive).error is E.NONE
    await h.settle()
    assert set(h.coord.rt.consumer_groups["g"].members) == {"a", "b"}
    await agrees(h)


async def test_a_heartbeat_whose_caller_left_is_reverted_all_the_same() -> None:
    h = await harness()
    await beat(h, "a", 0)
    before = await agrees(h)
    gate = asyncio.Event()
    h.log.append_gate, h.log.fail_next = gate, 1
    left = asyncio.ensure_future(beat(h, "b", 0))
    for _ in range(10):
        await asyncio.sleep(0)
    left.cancel()
    gate.set()
    assert await agrees(h) == before


# --- the classic protocol -----------------------------------------------------------------------


async def test_a_classic_join_into_a_consumer_group_whose_append_fails_adds_nobody() -> None:
    h = await harness()
    await beat(h, "a", 0)
    before = await agrees(h)
    h.log.fail_with = E.KAFKA_STORAGE_ERROR
    joined = await done(h.join("g"))
    assert joined.error is E.NOT_COORDINATOR
    h.log.fail_with = None
    assert await agrees(h) == before
    assert (await done(h.join("g"))).error is E.NONE
    await agrees(h)


async def test_a_classic_leave_from_a_consumer_group_whose_append_fails_keeps_the_member() -> None:
    h = await harness()
    await beat(h, "a", 0)
    joined = await done(h.join("g"))
    await beat(h, "b", 0)
    before = await agrees(h)
    h.log.fail_next = 1
    error, members = await h.coord.leave_group("g", [LeavingMember(joined.member_id, None)])
    assert (error, members) == (E.COORDINATOR_NOT_AVAILABLE, [])
    assert await agrees(h) == before
    assert h.coord.heartbeat(MemberHeartbeat("g", joined.generation_id, joined.member_id, None)) in (
        E.NONE, E.REBALANCE_IN_PROGRESS)
    assert await h.coord.leave_group("g", [LeavingMember(joined.member_id, None)]) == (E.NONE, [E.NONE])
    await agrees(h)


async def test_a_classic_member_expiry_in_a_consumer_group_whose_append_fails_keeps_it() -> None:
    h = await harness()
    await beat(h, "a", 0)
    joined = await done(h.join("g", session=10_000))
    await beat(h, "a", 1)
    h.log.fail_with = E.NOT_ENOUGH_REPLICAS
    await h.advance(10_000)
    assert joined.member_id in h.coord.rt.consumer_groups["g"].members
    await agrees(h)
    h.log.fail_with = None
    await h.advance(500)
    assert joined.member_id not in h.coord.rt.consumer_groups["g"].members
    await agrees(h)


async def test_a_static_classic_join_whose_append_fails_restores_the_old_member() -> None:
    h = await harness()
    first, = await h.stable_group(1, instance="i-1")
    before = await agrees(h)
    h.log.fail_with = E.UNKNOWN_TOPIC_OR_PARTITION
    again = await done(h.join("g", instance="i-1"))
    assert again.error is E.COORDINATOR_NOT_AVAILABLE
    h.log.fail_with = None
    assert await agrees(h) == before
    assert h.coord.heartbeat(MemberHeartbeat("g", 1, first.member_id, "i-1")) is E.NONE


async def test_a_sync_whose_append_fails_hands_out_no_assignment() -> None:
    h = await harness()
    first, = await h.stable_group(1)
    before = await agrees(h)
    joining = h.join("g", first.member_id)
    await h.settle()
    rejoined = await done(joining)
    h.log.fail_with = E.NOT_ENOUGH_REPLICAS
    synced = await done(h.sync("g", rejoined.generation_id, first.member_id, {first.member_id: b"new"}))
    assert synced.error is E.COORDINATOR_NOT_AVAILABLE
    h.log.fail_with = None
    group = h.coord.groups["g"]
    # As Kafka does: the assignment is reset and the members rejoin; the log still holds
    # the last generation that was written.
    assert group.state is GroupState.PREPARING_REBALANCE and group.get(first.member_id).assignment == b""
    assert await reloaded(h) == before


async def test_a_classic_join_into_an_empty_consumer_group_whose_append_fails_keeps_it() -> None:
    h = await harness()
    await beat(h, "a", 0)
    await beat(h, "a", -1)
    before = await agrees(h)
    h.log.fail_next = 1
    assert (await done(h.join("g"))).error is E.COORDINATOR_NOT_AVAILABLE
    assert await agrees(h) == before
    assert "g" in h.coord.rt.consumer_groups
    await h.stable_group(1)
    assert "g" not in h.coord.rt.consumer_groups
    await agrees(h)


# --- conversion ---------------------------------------------------------------------------------


async def test_an_upgrade_whose_append_fails_leaves_the_classic_group() -> None:
    h = await harness()
    first, = await h.stable_group(1)
    before = await agrees(h)
    h.log.fail_next = 1
    assert (await beat(h, "c", 0)).error is E.COORDINATOR_NOT_AVAILABLE
    assert await agrees(h) == before
    assert "g" not in h.coord.rt.consumer_groups
    assert h.coord.heartbeat(MemberHeartbeat("g", 1, first.member_id, None)) is E.NONE
    assert (await beat(h, "c", 0)).error is E.NONE
    assert "g" in h.coord.rt.consumer_groups
    await agrees(h)


async def test_a_downgrade_whose_append_fails_leaves_the_consumer_group() -> None:
    h = await harness()
    await beat(h, "a", 0)
    joined = await done(h.join("g"))
    assert joined.error is E.NONE
    before = await agrees(h)
    h.log.fail_next = 1
    assert (await beat(h, "a", -1)).error is E.COORDINATOR_NOT_AVAILABLE
    assert await agrees(h) == before
    assert set(h.coord.rt.consumer_groups["g"].members) == {"a", joined.member_id}
    assert (await beat(h, "a", -1)).error is E.NONE
    assert "g" not in h.coord.rt.consumer_groups and h.coord.groups["g"].has(joined.member_id)


# --- offsets ------------------------------------------------------------------------------------


async def test_an_offset_commit_whose_append_fails_changes_no_offset() -> None:
    h = await harness()
    await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(1, h)}))
    before = await agrees(h)
    h.log.fail_with = E.NOT_ENOUGH_REPLICAS
    res = await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(2, h), ("t", 1): om(3, h)}))
    assert res == {("t", 0): E.COORDINATOR_NOT_AVAILABLE, ("t", 1): E.COORDINATOR_NOT_AVAILABLE}
    h.log.fail_with = None
    assert await agrees(h) == before


async def test_a_txn_offset_commit_whose_append_fails_holds_nothing_and_markers_decide_the_rest() -> None:
    h = await harness()
    h.log.fail_next = 1
    req = CommitTxnOffsets("g", 42, 0, "", None, -1, {("t", 0): om(5, h)})
    assert await h.coord.commit_txn_offsets(req) == {("t", 0): E.COORDINATOR_NOT_AVAILABLE}
    assert h.coord.fetch_offsets("g", [("t", 0)], True)[1][("t", 0)].error is E.NONE
    await agrees(h)
    assert await h.coord.commit_txn_offsets(req) == {("t", 0): E.NONE}
    assert h.coord.fetch_offsets("g", [("t", 0)], True)[1][("t", 0)].error is E.UNSTABLE_OFFSET_COMMIT
    await agrees(h)
    # The marker is the transaction coordinator's write: once it is in the log, it decides.
    partition = h.coord.partition_for("g")
    h.log.append_marker(partition, 42, True)
    await h.coord.on_txn_marker(("__consumer_offsets", partition), 42, True)
    assert h.coord.fetch_offsets("g", [("t", 0)], True)[1][("t", 0)].offset == 5
    await agrees(h)


async def test_an_offset_delete_whose_append_fails_keeps_the_offsets() -> None:
    h = await harness()
    await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(1, h), ("t", 1): om(2, h)}))
    before = await agrees(h)
    h.log.fail_next = 1
    assert await h.coord.delete_offsets("s", [("t", 0)]) == (E.COORDINATOR_NOT_AVAILABLE, {})
    assert await agrees(h) == before


async def test_a_commit_appended_before_an_offset_delete_is_deleted_as_a_reload_would() -> None:
    h = await harness()
    await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(1, h), ("t", 1): om(2, h)}))
    gate = asyncio.Event()
    h.log.append_gate = gate
    commit = asyncio.ensure_future(h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(5, h)})))
    delete = asyncio.ensure_future(h.coord.delete_offsets("s", [("t", 0)]))
    for _ in range(10):
        await asyncio.sleep(0)
    gate.set()  # the commit's append goes first, the tombstone after it
    assert await commit == {("t", 0): E.NONE}
    assert await delete == (E.NONE, {("t", 0): E.NONE})
    served = await agrees(h)
    assert served["offsets", "s"] == ({("t", 1): (2, "")}, {})


async def test_a_group_delete_whose_append_fails_keeps_the_group() -> None:
    h = await harness()
    await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(1, h)}))
    await beat(h, "a", 0, group="c")
    await beat(h, "a", -1, group="c")
    before = await agrees(h)
    h.log.fail_next = 2
    assert await h.coord.delete_groups(["s", "c"]) == [("s", E.COORDINATOR_NOT_AVAILABLE),
                                                       ("c", E.COORDINATOR_NOT_AVAILABLE)]
    assert await agrees(h) == before
    assert await h.coord.delete_groups(["s", "c"]) == [("s", E.NONE), ("c", E.NONE)]
    assert await agrees(h) == {}


async def test_an_offset_expiry_whose_append_fails_keeps_the_offsets() -> None:
    h = await harness(offsets_retention_ms=60_000, offsets_retention_check_interval_ms=1000)
    await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", 0): om(1, h)}))
    before = await agrees(h)
    h.log.fail_with = E.NOT_ENOUGH_REPLICAS
    await h.advance(61_000)
    assert await agrees(h) == before
    h.log.fail_with = None
    await h.advance(1000)
    assert "s" not in h.coord.groups
    assert await agrees(h) == {}


# --- many operations, some appends failing ------------------------------------------------------


async def test_random_operations_with_failing_appends_keep_the_log_and_the_groups_in_agreement() -> None:
    """Seeded sequences of heartbeats, classic members, leaves, expiries and commits, a
    third of their appends failing: after every step, a reload serves the same."""
    import random

    for seed in range(12):
        rnd = random.Random(seed)
        h = await harness(migration_policy="upgrade")
        epochs: dict[str, int] = {}
        classic: dict[str, int] = {}
        for step in range(40):
            h.log.fail_next = 1 if rnd.random() < 0.33 else 0
            op = rnd.choice(["join", "beat", "beat", "ack", "leave", "static-leave", "classic-join",
                             "classic-leave", "expire", "commit", "subscribe"])
            member = rnd.choice(["a", "b", "c", "d"])
            if op == "join":
                r = await beat(h, member, 0, instance=f"i-{member}" if member in ("c", "d") else None)
                if r.error is E.NONE:
                    epochs[member] = r.member_epoch
            elif op in ("beat", "ack") and member in epochs:
                owned = None
                if op == "ack":
                    current = h.coord.rt.consumer_groups.get("g")
                    m = current.members.get(member) if current is not None else None
                    owned = None if m is None else {
                        TOPICS[t].topic_id: sorted(p for name, p in m.assignment.assigned if name == t)
                        for t in ("t", "u")}
                r = await beat(h, member, epochs[member], owned=owned)
                if r.error is E.NONE:
                    epochs[member] = r.member_epoch
                elif r.error is E.UNKNOWN_MEMBER_ID:  # fenced by its session meanwhile
                    del epochs[member]
                else:
                    # The epoch it was last answered is the one the group holds.
                    assert r.error is E.COORDINATOR_NOT_AVAILABLE, (seed, step, op, member, r)
            elif op == "subscribe" and member in epochs:
                r = await beat(h, member, epochs[member], topics=rnd.choice([["t"], ["t", "u"], []]),
                               regex=rnd.choice([None, "", "u"]), assignor=rnd.choice([None, "range", "uniform"]))
                if r.error is E.NONE:
                    epochs[member] = r.member_epoch
                elif r.error is E.UNKNOWN_MEMBER_ID:  # fenced by its session meanwhile
                    del epochs[member]
                else:
                    # The epoch it was last answered is the one the group holds.
                    assert r.error is E.COORDINATOR_NOT_AVAILABLE, (seed, step, op, member, r)
            elif op == "leave" and member in epochs:
                if (await beat(h, member, -1)).error is E.NONE:
                    del epochs[member]
            elif op == "static-leave" and member == "c" and "c" in epochs:
                if (await beat(h, "c", -2, instance="i-c")).error is E.NONE:
                    del epochs["c"]
            elif op == "static-leave" and member == "d" and "d" in epochs:
                # ... and comes back under a new member id, taking its place.
                if (await beat(h, "d", -2, instance="i-d")).error is E.NONE:
                    del epochs["d"]
                    r = await beat(h, "e", 0, instance="i-d")
                    if r.error is E.NONE:
                        epochs["e"] = r.member_epoch
            elif op == "classic-join" and h.coord.rt.consumer_groups.get("g") is not None \
                    and h.coord.rt.consumer_groups["g"].members:
                joined = await done(h.join("g", session=10_000))
                if joined.error is E.NONE:
                    classic[joined.member_id] = joined.generation_id
            elif op == "classic-leave" and classic:
                member_id = rnd.choice(sorted(classic))
                error, _ = await h.coord.leave_group("g", [LeavingMember(member_id, None)])
                if error is E.NONE:
                    del classic[member_id]
            elif op == "expire":
                await h.advance(rnd.choice([500, 10_000, h.coord.config.consumer_session_timeout_ms]))
            elif op == "commit":
                await h.coord.commit_offsets(CommitOffsets("s", "", None, -1, {("t", step % 4): om(step, h)}))
            h.log.fail_next = 0
            await h.settle()
            served = view(h.coord)
            assert served == await reloaded(h), (seed, step, op, member)
