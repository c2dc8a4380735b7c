"""The group coordinator follows the leadership of `__consumer_offsets` partitions (Kafka's
GroupCoordinator onElection/onResignation): two coordinators over one real storage engine
stand for two brokers sharing PostgreSQL."""

from __future__ import annotations

import asyncio

from coordinator.group.api import CommitOffsets, CommitTxnOffsets, LeavingMember, MemberHeartbeat
from coordinator.group.coordinator import GroupCoordinator
from coordinator.group.offsets import OffsetAndMetadata
from coordinator.group.records import OFFSETS_TOPIC
from coordinator.group.runtime import CoordinatorStatus
from coordinator.group.timers import heartbeat_key
from coordinator.log import StorageCoordinatorLog
from protocol.errors import ErrorCode as E
from storage.clock import ManualClock
from storage.memory import MemoryStorage
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.unit.coordinator.group.group_harness import Harness, group_config
from tests.unit.coordinator.group.test_consumer_heartbeat import T_ID, beat, parts

PARTITIONS = 4


class Broker(Harness):
    """A group coordinator owning no partition until elected, on a shared engine."""

    def __init__(self, engine: MemoryStorage, clock: ManualClock) -> None:
        self.clock = clock
        self.store = StorageCoordinatorLog(engine, OFFSETS_TOPIC, PARTITIONS, clock)
        self.coord = GroupCoordinator(
            self.store, clock, group_config(initial_rebalance_delay_ms=0, min_session_timeout_ms=1000),
            owns_all_partitions=False,
        )

    async def elect(self, partition: int, epoch: int) -> None:
        task = self.coord.on_election(partition, epoch)
        assert task is not None
        await task


def om(offset: int) -> OffsetAndMetadata:
    return OffsetAndMetadata(offset, commit_timestamp=0)


async def commit(coord: GroupCoordinator, group: str, offset: int) -> E:
    result = await coord.commit_offsets(CommitOffsets(group, "", None, -1, {("t", 0): om(offset)}))
    return result[("t", 0)]


def fetched(coord: GroupCoordinator, group: str) -> tuple[E, int | None]:
    error, offsets = coord.fetch_offsets(group, [("t", 0)], False)
    return error, offsets[("t", 0)].offset if offsets else None


def two_brokers() -> tuple[Broker, Broker, ManualClock]:
    engine = MemoryStorage(producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    clock = ManualClock()
    return Broker(engine, clock), Broker(engine, clock), clock


async def test_unowned_partitions_answer_not_coordinator() -> None:
    a, _, _ = two_brokers()
    p = a.coord.partition_for("g")
    assert a.coord.status is CoordinatorStatus.ACTIVE  # nothing owned, nothing loading
    assert await commit(a.coord, "g", 5) == E.NOT_COORDINATOR
    assert fetched(a.coord, "g")[0] == E.NOT_COORDINATOR
    assert (await a.join("g")).error == E.NOT_COORDINATOR
    assert a.coord.describe_group("g").error == E.NOT_COORDINATOR
    await a.elect(p, 0)
    assert await commit(a.coord, "g", 5) == E.NONE
    other = next(f"g{i}" for i in range(100) if a.coord.partition_for(f"g{i}") != p)
    assert await commit(a.coord, other, 5) == E.NOT_COORDINATOR


async def test_election_loads_in_the_background_and_answers_load_in_progress_meanwhile() -> None:
    a, b, _ = two_brokers()
    p = a.coord.partition_for("g")
    await a.elect(p, 0)
    assert await commit(a.coord, "g", 7) == E.NONE
    a.coord.on_resignation(p, 1)
    task = b.coord.on_election(p, 1)
    assert task is not None
    # Loading from the moment of the election, before the load has run at all.
    assert b.coord.status is CoordinatorStatus.LOADING
    assert fetched(b.coord, "g")[0] == E.COORDINATOR_LOAD_IN_PROGRESS
    assert await commit(b.coord, "g", 8) == E.COORDINATOR_LOAD_IN_PROGRESS
    assert b.coord.describe_group("g").error == E.COORDINATOR_LOAD_IN_PROGRESS
    assert b.coord.list_groups([], [])[0] == E.COORDINATOR_LOAD_IN_PROGRESS
    await task
    assert b.coord.status is CoordinatorStatus.ACTIVE
    assert fetched(b.coord, "g") == (E.NONE, 7)
    # The old coordinator answers NOT_COORDINATOR, and the new one takes the commits.
    assert fetched(a.coord, "g")[0] == E.NOT_COORDINATOR
    assert await commit(b.coord, "g", 9) == E.NONE
    assert fetched(b.coord, "g") == (E.NONE, 9)


async def test_resignation_drops_groups_answers_waiting_joins_and_cancels_timers() -> None:
    a, _, clock = two_brokers()
    h = a
    p = a.coord.partition_for("g")
    await a.elect(p, 3)
    leader, follower = await h.stable_group(2)
    assert a.coord.rt.timers.active(heartbeat_key("g", leader.member_id))
    # A rebalance: the leader's rejoin waits for the follower, who never comes.
    waiting = h.join("g", leader.member_id)
    await h.settle()
    assert not waiting.done()
    assert a.coord.on_resignation(p, 4)
    assert (await asyncio.wait_for(waiting, 1)).error == E.NOT_COORDINATOR
    assert "g" not in a.coord.groups
    assert not a.coord.rt.timers.active(heartbeat_key("g", leader.member_id))
    assert not a.coord.rt.timers.active(heartbeat_key("g", follower.member_id))
    # Nothing fires later: the sessions and the rebalance timeout are gone.
    live = dict(a.coord.rt.timers._live)
    assert live == {}
    clock.advance(60_000)
    await h.settle()
    assert a.coord.heartbeat(MemberHeartbeat("g", 1, leader.member_id, None)) == E.NOT_COORDINATOR
    assert await a.coord.leave_group("g", [LeavingMember(leader.member_id, None)]) == (E.NOT_COORDINATOR, [])


async def test_stale_elections_and_resignations_are_ignored() -> None:
    a, _, _ = two_brokers()
    p = a.coord.partition_for("g")
    await a.elect(p, 5)
    assert await commit(a.coord, "g", 1) == E.NONE
    # Older or equal epochs than the one it was elected at change nothing.
    assert a.coord.on_election(p, 5) is None
    assert a.coord.on_election(p, 2) is None
    assert a.coord.on_resignation(p, 4) is False
    assert fetched(a.coord, "g") == (E.NONE, 1)
    # A resignation at the newer epoch counts, and an election older than it stays ignored.
    assert a.coord.on_resignation(p, 6) is True
    assert a.coord.on_election(p, 6) is None
    assert fetched(a.coord, "g")[0] == E.NOT_COORDINATOR
    assert a.coord.on_resignation(p, 7) is False  # not owned
    await a.elect(p, 7)
    assert fetched(a.coord, "g") == (E.NONE, 1)


async def test_a_newer_election_of_an_owned_partition_reloads_it() -> None:
    """Leadership may have been elsewhere in between: what the log holds now wins."""
    a, b, _ = two_brokers()
    p = a.coord.partition_for("g")
    await a.elect(p, 1)
    assert await commit(a.coord, "g", 1) == E.NONE
    # b led the partition at epoch 2 while a missed the news.
    await b.elect(p, 2)
    assert await commit(b.coord, "g", 2) == E.NONE
    await a.elect(p, 3)
    assert fetched(a.coord, "g") == (E.NONE, 2)


async def test_a_write_in_flight_when_resigned_answers_not_coordinator() -> None:
    h = Harness()
    await h.coord.load()
    p = h.coord.partition_for("g")
    h.log.append_gate = asyncio.Event()
    pending = asyncio.ensure_future(commit(h.coord, "g", 4))
    for _ in range(5):
        await asyncio.sleep(0)
    assert h.coord.on_resignation(p, 1)
    h.log.append_gate.set()
    assert await asyncio.wait_for(pending, 1) == E.NOT_COORDINATOR
    assert "g" not in h.coord.groups
    # The record reached the log all the same: the next owner finds it.
    again = GroupCoordinator(h.log, h.clock, h.coord.config, owns_all_partitions=False)
    task = again.on_election(p, 2)
    assert task is not None
    await task
    assert again.fetch_offsets("g", [("t", 0)], False)[1][("t", 0)].offset == 4


async def test_a_marker_reaching_a_partition_while_it_loads_decides_its_offsets_after() -> None:
    a, b, _ = two_brokers()
    p = a.coord.partition_for("g")
    tp = ("t", 0)
    await a.elect(p, 0)
    assert await a.coord.commit_txn_offsets(CommitTxnOffsets("g", 7, 0, "", None, -1, {tp: om(5)})) == {tp: E.NONE}
    a.coord.on_resignation(p, 1)
    task = b.coord.on_election(p, 1)
    assert task is not None
    # The COMMIT marker lands while b replays (after the part of the log its replay reads).
    await b.coord.on_txn_marker((OFFSETS_TOPIC, p), 7, True)
    # a no longer owns the partition: the marker is not its business.
    await a.coord.on_txn_marker((OFFSETS_TOPIC, p), 7, True)
    await task
    fetched = b.coord.fetch_offsets("g", [tp], True)[1][tp]
    assert (fetched.offset, fetched.error) == (5, E.NONE)
    assert a.coord.fetch_offsets("g", [tp], True)[0] == E.NOT_COORDINATOR


async def test_single_broker_mode_owns_every_partition_at_epoch_zero() -> None:
    h = Harness()
    assert h.coord.status is CoordinatorStatus.LOADING
    await h.coord.load()
    assert h.coord.rt.ownership.loaded_partitions() == set(range(h.log.num_partitions))
    assert {h.coord.rt.ownership.get(p).epoch for p in range(h.log.num_partitions)} == {0}  # type: ignore[union-attr]
    assert await commit(h.coord, "g", 3) == E.NONE


async def test_consumer_groups_move_with_their_partition_sessions_and_all() -> None:
    """A KIP-848 group: the old coordinator drops it with its member's session timer; the
    new one rebuilds it from the log, the member keeping its epoch and assignment."""
    a, b, clock = two_brokers()
    p = a.coord.partition_for("g")
    await a.elect(p, 0)
    joined = await beat(a, "m", 0)
    assert joined.error is E.NONE and parts(joined) == [0, 1, 2, 3]
    assert a.coord.rt.timers._live  # the member's session
    assert a.coord.on_resignation(p, 1)
    assert a.coord.rt.consumer_groups == {} and a.coord.rt.timers._live == {}
    assert (await beat(a, "m", joined.member_epoch)).error is E.NOT_COORDINATOR
    await b.elect(p, 1)
    again = await beat(b, "m", joined.member_epoch, owned={T_ID: [0, 1, 2, 3]})
    assert (again.error, again.member_epoch) == (E.NONE, joined.member_epoch)
    # Its session runs at the new coordinator from the load on: silence expires it there.
    clock.advance(b.coord.config.consumer_session_timeout_ms + 1)
    await b.settle()
    assert "m" not in b.coord.rt.consumer_groups["g"].members
