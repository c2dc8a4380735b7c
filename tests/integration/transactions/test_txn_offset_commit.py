"""TxnOffsetCommit: pending offsets decided by the transaction's marker, the checks before
the append, and replay of transactional offsets from `__consumer_offsets`."""

from __future__ import annotations

import time
import uuid
from dataclasses import replace
from typing import Any

import pytest

from broker.config import Config
from coordinator.group.api import CommitTxnOffsets
from coordinator.group.config import GroupConfig
from coordinator.group.coordinator import GroupCoordinator
from coordinator.group.offsets import OffsetAndMetadata
from coordinator.log import MemoryCoordinatorLog
from protocol.errors import ErrorCode as E
from protocol.messages.add_offsets_to_txn_request import AddOffsetsToTxnRequest
from protocol.messages.consumer_group_heartbeat_request import ConsumerGroupHeartbeatRequest
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.offset_fetch_request import OffsetFetchRequest, OffsetFetchRequestTopic
from storage.clock import ManualClock
from tests.broker_process import BrokerProcess
from tests.integration.transactions.txn_clients import create_topics
from tests.integration.transactions.txn_offsets import _commit, _fetch
from tests.kafka_wire import WireClient


def _init(c: WireClient, tid: str) -> tuple[int, int]:
    resp: Any = c.call(22, 4, InitProducerIdRequest(transactional_id=tid, transaction_timeout_ms=60000))
    assert resp.error_code == E.NONE
    return resp.producer_id, resp.producer_epoch


def _add_offsets(c: WireClient, tid: str, pid: int, epoch: int, group: str) -> int:
    resp: Any = c.call(25, 3, AddOffsetsToTxnRequest(transactional_id=tid, producer_id=pid, producer_epoch=epoch,
                                                     group_id=group))
    return int(resp.error_code)


def _end(c: WireClient, tid: str, pid: int, epoch: int, commit: bool) -> None:
    """EndTxn, then retry until the markers are written (the transaction is complete)."""
    deadline = time.monotonic() + 10
    while True:
        resp: Any = c.call(26, 3, EndTxnRequest(transactional_id=tid, producer_id=pid, producer_epoch=epoch,
                                                committed=commit))
        if resp.error_code == E.NONE and _complete(c, tid):
            return
        assert resp.error_code in (E.NONE, E.CONCURRENT_TRANSACTIONS), resp
        assert time.monotonic() < deadline
        time.sleep(0.02)


def _complete(c: WireClient, tid: str) -> bool:
    from protocol.messages.describe_transactions_request import DescribeTransactionsRequest

    resp: Any = c.call(65, 0, DescribeTransactionsRequest(transactional_ids=[tid]))
    return bool(resp.transaction_states[0].transaction_state in ("CompleteCommit", "CompleteAbort"))


def test_pending_until_commit_marker_then_visible_and_kept_across_restart(
    fresh_txn_broker: BrokerProcess, name: str
) -> None:
    broker = fresh_txn_broker
    create_topics(broker.bootstrap, {f"{name}-in": 2})
    tps = [(f"{name}-in", 0), (f"{name}-in", 1)]
    group, tid = f"{name}-g", f"{name}-tid"
    with WireClient(broker.bootstrap) as c:
        pid, epoch = _init(c, tid)
        assert _add_offsets(c, tid, pid, epoch, group) == E.NONE
        assert _commit(c, tid, pid, epoch, group, {tps[0]: 10, tps[1]: 20}) == dict.fromkeys(tps, E.NONE)
        assert _fetch(c, group, tps, stable=False) == dict.fromkeys(tps, (-1, E.NONE))
        assert _fetch(c, group, tps, stable=True) == dict.fromkeys(tps, (-1, E.UNSTABLE_OFFSET_COMMIT))
        _end(c, tid, pid, epoch, commit=True)
        assert _fetch(c, group, tps, stable=True) == {tps[0]: (10, E.NONE), tps[1]: (20, E.NONE)}
        # An aborted transaction leaves the committed offsets alone.
        assert _add_offsets(c, tid, pid, epoch, group) == E.NONE
        assert _commit(c, tid, pid, epoch, group, {tps[0]: 99}) == {tps[0]: E.NONE}
        assert _fetch(c, group, tps, stable=True)[tps[0]] == (-1, E.UNSTABLE_OFFSET_COMMIT)
        _end(c, tid, pid, epoch, commit=False)
        assert _fetch(c, group, tps, stable=True) == {tps[0]: (10, E.NONE), tps[1]: (20, E.NONE)}
        # One left open across a SIGKILL stays pending after the reload.
        assert _add_offsets(c, tid, pid, epoch, group) == E.NONE
        assert _commit(c, tid, pid, epoch, group, {tps[1]: 30}) == {tps[1]: E.NONE}
    broker.kill()
    broker.start()
    with WireClient(broker.bootstrap) as c:
        deadline = time.monotonic() + 10
        while True:
            resp: Any = c.call(9, 7, OffsetFetchRequest(group_id=group, require_stable=True, topics=[
                OffsetFetchRequestTopic(name=tps[0][0], partition_indexes=[0, 1])]))
            if resp.error_code != E.COORDINATOR_LOAD_IN_PROGRESS:
                break
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert _fetch(c, group, tps, stable=True) == {tps[0]: (10, E.NONE), tps[1]: (-1, E.UNSTABLE_OFFSET_COMMIT)}
        _end(c, tid, pid, epoch, commit=True)
        assert _fetch(c, group, tps, stable=True) == {tps[0]: (10, E.NONE), tps[1]: (30, E.NONE)}


def test_checks_before_the_append(txn_broker: BrokerProcess, name: str) -> None:
    create_topics(txn_broker.bootstrap, {f"{name}-in": 1})
    tp = (f"{name}-in", 0)
    group, tid = f"{name}-g", f"{name}-tid"
    with WireClient(txn_broker.bootstrap) as c:
        pid, epoch = _init(c, tid)
        # The group's offsets partition was never added to the transaction.
        assert _commit(c, tid, pid, epoch, group, {tp: 1}, version=3) == {tp: E.INVALID_TXN_STATE}
        assert _commit(c, tid, pid, epoch, group, {tp: 1}, version=4) == {tp: E.TRANSACTION_ABORTABLE}
        assert _add_offsets(c, tid, pid, epoch, group) == E.NONE
        assert _commit(c, tid, pid, epoch - 1 if epoch else epoch + 1, group, {tp: 1}) == {
            tp: E.INVALID_PRODUCER_EPOCH
        }
        assert _commit(c, tid, pid + 1000, epoch, group, {tp: 1}) == {tp: E.INVALID_PRODUCER_ID_MAPPING}
        assert _commit(c, tid, pid, epoch, "", {tp: 1}) == {tp: E.INVALID_GROUP_ID}
        assert _commit(c, tid, pid, epoch, group, {(f"{name}-none", 0): 1}) == {
            (f"{name}-none", 0): E.UNKNOWN_TOPIC_OR_PARTITION
        }
        # KIP-447: the group does not exist, so a generation is illegal.
        assert _commit(c, tid, pid, epoch, group, {tp: 1}, generation_id=3, member_id="m") == {
            tp: E.ILLEGAL_GENERATION
        }
        assert _fetch(c, group, [tp], stable=True) == {tp: (-1, E.NONE)}
        assert _commit(c, tid, pid, epoch, group, {tp: 1}, version=0) == {tp: E.NONE}
        # The group now exists, empty: generation -1 commits whatever member fields it carries
        # (Kafka's ClassicGroup.validateOffsetCommit).
        assert _commit(c, tid, pid, epoch, group, {tp: 2}, generation_id=-1, member_id="gone",
                       group_instance_id="i") == {tp: E.NONE}
        _end(c, tid, pid, epoch, commit=True)
        assert _fetch(c, group, [tp], stable=True) == {tp: (2, E.NONE)}


def test_consumer_protocol_member_commits_in_a_transaction(file_txn_broker: BrokerProcess, name: str) -> None:
    # A KIP-848 member's sendOffsetsToTransaction names its member id and epoch: Kafka's
    # ConsumerGroup.validateOffsetCommit checks them against the consumer group (a stale
    # epoch is ILLEGAL_GENERATION in TxnOffsetCommit, OffsetMetadataManager).
    create_topics(file_txn_broker.bootstrap, {f"{name}-in": 1})
    tp = (f"{name}-in", 0)
    group, tid, member = f"{name}-g", f"{name}-tid", str(uuid.uuid4())
    with WireClient(file_txn_broker.bootstrap) as c:
        joined: Any = c.call(68, 1, ConsumerGroupHeartbeatRequest(
            group_id=group, member_id=member, member_epoch=0, rebalance_timeout_ms=5000,
            subscribed_topic_names=[tp[0]], topic_partitions=[]))
        assert joined.error_code == E.NONE
        member_epoch = joined.member_epoch
        assert member_epoch > 0
        pid, epoch = _init(c, tid)
        assert _add_offsets(c, tid, pid, epoch, group) == E.NONE
        assert _commit(c, tid, pid, epoch, group, {tp: 5}, member_id=member, generation_id=member_epoch) == {
            tp: E.NONE}
        assert _commit(c, tid, pid, epoch, group, {tp: 7}, member_id=member, generation_id=member_epoch + 1) == {
            tp: E.ILLEGAL_GENERATION}
        assert _commit(c, tid, pid, epoch, group, {tp: 7}, member_id="other", generation_id=member_epoch) == {
            tp: E.UNKNOWN_MEMBER_ID}
        # Without member fields a transactional commit is not checked against the members.
        assert _commit(c, tid, pid, epoch, group, {tp: 6}) == {tp: E.NONE}
        _end(c, tid, pid, epoch, commit=True)
        assert _fetch(c, group, [tp], stable=True) == {tp: (6, E.NONE)}


# --- the group coordinator on an in-memory log ---------------------------------------------


def _config() -> GroupConfig:
    return replace(GroupConfig.from_config(Config()), initial_rebalance_delay_ms=0, min_session_timeout_ms=1000)


async def _coordinator(log: MemoryCoordinatorLog) -> GroupCoordinator:
    coord = GroupCoordinator(log, ManualClock(), _config())
    await coord.load()
    return coord


def _om(offset: int) -> OffsetAndMetadata:
    return OffsetAndMetadata(offset, commit_timestamp=0)


async def test_kip447_member_checks() -> None:
    from coordinator.group.classic.group import ClassicGroup, Member

    coord = await _coordinator(MemoryCoordinatorLog(4))
    group = ClassicGroup("g", 0)
    group.generation_id = 2
    group.add(Member(member_id="m1", group_instance_id="i1", client_id="c", client_host="h",
                     rebalance_timeout_ms=1000, session_timeout_ms=1000, protocol_type="consumer",
                     protocols=[("range", b"")]), None)
    coord.groups["g"] = group
    tp = ("t", 0)

    async def commit(member: str, instance: str | None, generation: int) -> E:
        return (await coord.commit_txn_offsets(CommitTxnOffsets("g", 7, 0, member, instance, generation, {tp: _om(5)})))[tp]

    assert await commit("other", None, 2) == E.UNKNOWN_MEMBER_ID
    assert await commit("m2", "i1", 2) == E.FENCED_INSTANCE_ID
    assert await commit("m1", "i1", 1) == E.ILLEGAL_GENERATION
    assert await commit("m1", "i1", 2) == E.NONE
    # Without member fields a transactional commit is accepted although the group has members.
    assert await commit("", None, -1) == E.NONE
    assert coord.fetch_offsets("g", [tp], True)[1][tp].error == E.UNSTABLE_OFFSET_COMMIT
    big = OffsetAndMetadata(1, metadata="x" * 5000)
    assert await coord.commit_txn_offsets(CommitTxnOffsets("g", 7, 0, "", None, -1, {tp: big})) == {tp: E.OFFSET_METADATA_TOO_LARGE}


async def test_replay_decides_pending_offsets_by_marker() -> None:
    log = MemoryCoordinatorLog(4)
    coord = await _coordinator(log)
    part = coord.partition_for("g")
    tp1, tp2 = ("t", 0), ("t", 1)
    assert await coord.commit_txn_offsets(CommitTxnOffsets("g", 7, 0, "", None, -1, {tp1: _om(5)})) == {tp1: E.NONE}
    assert await coord.commit_txn_offsets(CommitTxnOffsets("g", 8, 0, "", None, -1, {tp2: _om(6)})) == {tp2: E.NONE}
    assert await coord.commit_txn_offsets(CommitTxnOffsets("g", 9, 0, "", None, -1, {tp2: _om(9)})) == {tp2: E.NONE}
    log.append_marker(part, 7, committed=True)
    log.append_marker(part, 8, committed=False)
    # The live coordinator learns of markers from the marker writer.
    await coord.on_txn_marker(("__consumer_offsets", part), 7, True)
    await coord.on_txn_marker(("__consumer_offsets", part), 8, False)
    for c in (coord, await _coordinator(log)):
        fetched = c.fetch_offsets("g", [tp1, tp2], True)[1]
        assert fetched[tp1].offset == 5 and fetched[tp1].error == E.NONE
        assert fetched[tp2].error == E.UNSTABLE_OFFSET_COMMIT  # producer 9 is still open
        assert c.fetch_offsets("g", [tp2], False)[1][tp2].offset == -1


async def test_marker_racing_the_append_decides_the_offsets() -> None:
    """An ABORT marker (say, a timeout) lands right after the offsets' batch, while their
    append is still in flight: the offsets must not stay pending forever."""
    log = MemoryCoordinatorLog(4)
    coord = await _coordinator(log)
    part = coord.partition_for("g")
    append = log.append

    async def append_then_marker(*args: Any) -> int:
        base = await append(*args)
        log.append_marker(part, 7, committed=False)
        await coord.on_txn_marker(("__consumer_offsets", part), 7, False)
        return base

    log.append = append_then_marker  # type: ignore[method-assign,assignment]
    tp = ("t", 0)
    assert await coord.commit_txn_offsets(CommitTxnOffsets("g", 7, 0, "", None, -1, {tp: _om(5)})) == {tp: E.NONE}
    assert coord.fetch_offsets("g", [tp], True)[1][tp].error == E.NONE
    assert coord.fetch_offsets("g", [tp], True)[1][tp].offset == -1


@pytest.mark.parametrize("committed", [True, False])
async def test_marker_while_loading_is_applied_after(committed: bool) -> None:
    log = MemoryCoordinatorLog(4)
    coord = await _coordinator(log)
    tp = ("t", 0)
    await coord.commit_txn_offsets(CommitTxnOffsets("g", 7, 0, "", None, -1, {tp: _om(5)}))
    reloaded = GroupCoordinator(log, ManualClock(), _config())
    part = reloaded.partition_for("g")
    await reloaded.on_txn_marker(("__consumer_offsets", part), 7, committed)  # not yet in the log replay reads
    await reloaded.load()
    fetched = reloaded.fetch_offsets("g", [tp], True)[1][tp]
    assert (fetched.offset, fetched.error) == ((5, E.NONE) if committed else (-1, E.NONE))
