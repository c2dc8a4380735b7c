"""TransactionCoordinator against Kafka's TransactionCoordinator and TransactionMetadata, with a ManualClock."""

from __future__ import annotations

import asyncio

import pytest

from coordinator.transaction import CoordinatorStatus, TransactionState
from coordinator.transaction.metadata import MAX_EPOCH
from protocol.errors import ErrorCode
from tests.unit.coordinator.transaction.txn_helpers import (
    TIMEOUT_MS,
    Env,
    begin,
    begun_with_markers_held,
    init,
)

S = TransactionState
E = ErrorCode


@pytest.fixture
def env() -> Env:
    return Env()


# --- InitProducerId --------------------------------------------------------------------------


async def test_idempotent_producer_gets_fresh_ids(env: Env) -> None:
    coord = await env.coordinator()
    a = await coord.init_producer_id(None, 0)
    b = await coord.init_producer_id(None, 0)
    assert (a.error_code, a.producer_epoch, b.error_code, b.producer_epoch) == (0, 0, 0, 0)
    assert a.producer_id != b.producer_id
    assert env.log.records() == []  # nothing written for idempotent producers


async def test_transactional_init_creates_then_bumps(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    assert epoch == 0
    pid2, epoch2 = await init(coord, "tx")
    assert (pid2, epoch2) == (pid, 1)
    recs = env.log.records()
    assert [(k, v.state, v.producer_epoch) for k, v in recs if v] == [("tx", S.EMPTY, 0), ("tx", S.EMPTY, 1)]


@pytest.mark.parametrize(
    ("tid", "timeout", "pid", "epoch", "expected"),
    [
        ("", TIMEOUT_MS, -1, -1, E.INVALID_REQUEST),
        ("tx", TIMEOUT_MS, 5, -1, E.INVALID_REQUEST),
        ("tx", TIMEOUT_MS, -1, 3, E.INVALID_REQUEST),
        (None, 0, 5, -1, E.INVALID_REQUEST),
        ("tx", 0, -1, -1, E.INVALID_TRANSACTION_TIMEOUT),
        ("tx", -5, -1, -1, E.INVALID_TRANSACTION_TIMEOUT),
        ("tx", 900_001, -1, -1, E.INVALID_TRANSACTION_TIMEOUT),
    ],
)
async def test_init_validation(
    env: Env, tid: str | None, timeout: int, pid: int, epoch: int, expected: int
) -> None:
    coord = await env.coordinator()
    res = await coord.init_producer_id(tid, timeout, pid, epoch)
    assert res.error_code == expected
    assert env.log.records() == []


async def test_init_accepts_max_timeout(env: Env) -> None:
    coord = await env.coordinator()
    assert (await coord.init_producer_id("tx", 900_000)).error_code == E.NONE


async def test_kip360_bump_and_retry(env: Env) -> None:
    coord = await env.coordinator()
    pid, e0 = await init(coord, "tx")
    # The producer bumps its own epoch after an abortable error.
    _, e1 = await init(coord, "tx", producer_id=pid, producer_epoch=e0)
    assert e1 == e0 + 1
    # Its response was lost: the retry with the old epoch gets the same answer.
    _, again = await init(coord, "tx", producer_id=pid, producer_epoch=e0)
    assert again == e1
    # An epoch that is neither current nor last is fenced.
    res = await coord.init_producer_id("tx", TIMEOUT_MS, pid, e0 + 7)
    assert res.error_code == E.PRODUCER_FENCED
    # And another producer id entirely.
    res = await coord.init_producer_id("tx", TIMEOUT_MS, pid + 100, e1)
    assert res.error_code == E.PRODUCER_FENCED


async def test_kip360_recovery_after_expiry_gets_fresh_metadata(env: Env) -> None:
    coord = await env.coordinator()
    res = await coord.init_producer_id("gone", TIMEOUT_MS, 1234, 5)
    assert res.error_code == E.NONE and res.producer_epoch == 0 and res.producer_id != 1234


async def test_new_instance_fences_open_transaction(env: Env) -> None:
    coord = await env.coordinator()
    env.writer.gate = asyncio.Event()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("t", 0), ("t", 1))
    res = await coord.init_producer_id("tx", TIMEOUT_MS)
    assert res.error_code == E.CONCURRENT_TRANSACTIONS
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.PREPARE_ABORT and meta.producer_epoch == epoch + 1
    # Retries keep getting CONCURRENT_TRANSACTIONS while the abort markers are written.
    assert (await coord.init_producer_id("tx", TIMEOUT_MS)).error_code == E.CONCURRENT_TRANSACTIONS
    # The old producer is fenced at the coordinator.
    assert await coord.end_txn("tx", pid, epoch, True) == E.PRODUCER_FENCED
    env.writer.gate.set()
    await coord.wait_for_markers()
    assert env.writer.written[("t", 0)] == [(pid, epoch + 1, False)]
    assert meta.state is S.COMPLETE_ABORT
    pid2, epoch2 = await init(coord, "tx")
    assert (pid2, epoch2) == (pid, epoch + 2)
    states = [v.state for _, v in env.log.records() if v]
    # PrepareEpochFence is never written.
    assert states == [S.EMPTY, S.ONGOING, S.PREPARE_ABORT, S.COMPLETE_ABORT, S.EMPTY]


async def test_new_instance_fences_open_transaction_of_version_2(env: Env) -> None:
    """With transaction version 2 the fence's abort is an EndTxn of version 2 and bumps once
    more (Kafka's endTransaction after prepareFenceProducerEpoch): markers at epoch+2, the new
    producer at epoch+3. The in-memory start of the fenced transaction stays (Kafka 4.0)."""
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    start = env.clock.now_ms()
    assert await coord.add_partitions("tx", pid, epoch, [("t", 0)], client_transaction_version=2) == E.NONE
    env.clock.advance(100)
    assert (await coord.init_producer_id("tx", TIMEOUT_MS)).error_code == E.CONCURRENT_TRANSACTIONS
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.PREPARE_ABORT
    assert (meta.producer_epoch, meta.last_producer_epoch) == (epoch + 2, epoch + 1)
    await coord.wait_for_markers()
    assert env.writer.written[("t", 0)] == [(pid, epoch + 2, False)]
    assert (await init(coord, "tx")) == (pid, epoch + 3)
    assert (meta.state, meta.start_timestamp) == (S.EMPTY, start)
    # The log says Empty with no start, as Kafka writes it.
    assert [v.start_timestamp for _, v in env.log.records() if v][-1] == -1


async def test_epoch_exhaustion_rotates_producer_id(env: Env) -> None:
    coord = await env.coordinator()
    pid, _ = await init(coord, "tx")
    meta = coord.metadata("tx")
    assert meta is not None
    meta.producer_epoch = MAX_EPOCH - 2
    pid1, e1 = await init(coord, "tx")
    assert (pid1, e1) == (pid, MAX_EPOCH - 1)
    pid2, e2 = await init(coord, "tx")
    assert pid2 != pid and e2 == 0
    assert meta.prev_producer_id == pid and meta.last_producer_epoch == -1


async def test_rotation_with_expected_epoch_and_its_retry(env: Env) -> None:
    coord = await env.coordinator()
    pid, _ = await init(coord, "tx")
    meta = coord.metadata("tx")
    assert meta is not None
    meta.producer_epoch = MAX_EPOCH - 1
    pid2, e2 = await init(coord, "tx", producer_id=pid, producer_epoch=MAX_EPOCH - 1)
    assert pid2 != pid and e2 == 0 and meta.last_producer_epoch == MAX_EPOCH - 1
    # The response was lost: the producer retries with its old, exhausted (pid, epoch).
    pid3, e3 = await init(coord, "tx", producer_id=pid, producer_epoch=MAX_EPOCH - 1)
    assert (pid3, e3) == (pid2, 0)
    # The rotation survives a restart: PreviousProducerId is in the log.
    coord2 = await env.coordinator()
    m2 = coord2.metadata("tx")
    assert m2 is not None and (m2.producer_id, m2.prev_producer_id) == (pid2, pid)


async def test_init_concurrent_while_append_in_flight(env: Env) -> None:
    coord = await env.coordinator()
    await init(coord, "tx")
    env.log.append_gate = asyncio.Event()
    first = asyncio.create_task(coord.init_producer_id("tx", TIMEOUT_MS))
    await asyncio.sleep(0)
    assert (await coord.init_producer_id("tx", TIMEOUT_MS)).error_code == E.CONCURRENT_TRANSACTIONS
    env.log.append_gate.set()
    res = await first
    assert res.error_code == E.NONE and res.producer_epoch == 1


async def test_init_concurrent_while_prepare_commit_completes(env: Env) -> None:
    coord = await env.coordinator()
    env.writer.gate = asyncio.Event()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch)
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    assert (await coord.init_producer_id("tx", TIMEOUT_MS)).error_code == E.CONCURRENT_TRANSACTIONS
    env.writer.gate.set()
    await coord.wait_for_markers()
    assert (await coord.init_producer_id("tx", TIMEOUT_MS)).producer_epoch == epoch + 1


async def test_state_unchanged_when_append_fails(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("t", 0))
    meta = coord.metadata("tx")
    assert meta is not None
    before = meta.snapshot()
    env.log.fail_with = E.NOT_ENOUGH_REPLICAS
    assert await coord.add_partitions("tx", pid, epoch, [("t", 1)]) == E.COORDINATOR_NOT_AVAILABLE
    assert await coord.end_txn("tx", pid, epoch, True) == E.COORDINATOR_NOT_AVAILABLE
    assert (await coord.init_producer_id("tx", TIMEOUT_MS)).error_code == E.COORDINATOR_NOT_AVAILABLE
    assert await coord.abort_timed_out_transactions() == []
    env.log.fail_with = E.KAFKA_STORAGE_ERROR
    assert await coord.end_txn("tx", pid, epoch, False) == E.NOT_COORDINATOR
    env.log.fail_with = E.MESSAGE_TOO_LARGE
    assert await coord.end_txn("tx", pid, epoch, False) == E.UNKNOWN_SERVER_ERROR
    assert meta.snapshot() == before and meta.pending_state is None
    assert env.writer.calls == []
    env.log.fail_with = None
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE


async def test_failed_first_init_leaves_no_metadata(env: Env) -> None:
    coord = await env.coordinator()
    env.log.fail_with = E.NOT_ENOUGH_REPLICAS
    assert (await coord.init_producer_id("tx", TIMEOUT_MS)).error_code == E.COORDINATOR_NOT_AVAILABLE
    assert coord.metadata("tx") is None


# --- AddPartitionsToTxn / verification -------------------------------------------------------


async def test_add_partitions_errors(env: Env) -> None:
    coord = await env.coordinator()
    assert await coord.add_partitions("", 1, 0, [("t", 0)]) == E.INVALID_REQUEST
    assert await coord.add_partitions("nope", 1, 0, [("t", 0)]) == E.INVALID_PRODUCER_ID_MAPPING
    pid, epoch = await init(coord, "tx")
    assert await coord.add_partitions("tx", pid + 1, epoch, [("t", 0)]) == E.INVALID_PRODUCER_ID_MAPPING
    assert await coord.add_partitions("tx", pid, epoch + 1, [("t", 0)]) == E.PRODUCER_FENCED
    await begin(coord, "tx", pid, epoch, ("t", 0))
    writes = len(env.log.records())
    # Already in the transaction: answered without a write.
    assert await coord.add_partitions("tx", pid, epoch, [("t", 0)]) == E.NONE
    assert len(env.log.records()) == writes
    env.writer.gate = asyncio.Event()
    assert await coord.end_txn("tx", pid, epoch, False) == E.NONE
    assert await coord.add_partitions("tx", pid, epoch, [("t", 1)]) == E.CONCURRENT_TRANSACTIONS
    env.writer.gate.set()
    await coord.wait_for_markers()


async def test_add_partitions_pending_checked_before_producer(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    env.log.append_gate = asyncio.Event()
    task = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 0)]))
    await asyncio.sleep(0)
    assert await coord.add_partitions("tx", pid + 5, epoch, [("t", 1)]) == E.CONCURRENT_TRANSACTIONS
    env.log.append_gate.set()
    assert await task == E.NONE


async def test_transaction_start_time_set_on_first_add(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    start = env.clock.now_ms()
    await begin(coord, "tx", pid, epoch, ("t", 0))
    env.clock.advance(500)
    await begin(coord, "tx", pid, epoch, ("t", 1))
    meta = coord.metadata("tx")
    assert meta is not None and meta.start_timestamp == start
    assert meta.partitions == {("t", 0), ("t", 1)}


async def test_verify_partitions(env: Env) -> None:
    coord = await env.coordinator()
    tps = [("t", 0), ("t", 1)]
    assert coord.verify_partitions("nope", 1, 0, tps) == dict.fromkeys(tps, E.INVALID_PRODUCER_ID_MAPPING)
    pid, epoch = await init(coord, "tx")
    assert coord.verify_partitions("tx", pid, epoch, tps) == dict.fromkeys(tps, E.TRANSACTION_ABORTABLE)
    await begin(coord, "tx", pid, epoch, ("t", 0))
    assert coord.verify_partitions("tx", pid, epoch, tps) == {
        ("t", 0): E.NONE,
        ("t", 1): E.TRANSACTION_ABORTABLE,
    }
    assert coord.verify_partitions("tx", pid, epoch - 1, tps) == dict.fromkeys(tps, E.PRODUCER_FENCED)
    assert coord.verify_partitions("tx", pid + 1, epoch, tps) == dict.fromkeys(
        tps, E.INVALID_PRODUCER_ID_MAPPING
    )
    env.writer.gate = asyncio.Event()
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    assert coord.verify_partitions("tx", pid, epoch, tps) == dict.fromkeys(tps, E.CONCURRENT_TRANSACTIONS)
    env.writer.gate.set()
    await coord.wait_for_markers()
    assert coord.verify_partitions("tx", pid, epoch, tps) == dict.fromkeys(tps, E.TRANSACTION_ABORTABLE)


# --- EndTxn ------------------------------------------------------------------------------------


async def test_commit_writes_markers_then_completes(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("a", 0), ("b", 2))
    env.writer.gate = asyncio.Event()
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.PREPARE_COMMIT  # answered before the markers
    assert await coord.end_txn("tx", pid, epoch, True) == E.CONCURRENT_TRANSACTIONS
    assert await coord.end_txn("tx", pid, epoch, False) == E.INVALID_TXN_STATE
    env.writer.gate.set()
    await coord.wait_for_markers()
    assert meta.state is S.COMPLETE_COMMIT and meta.partitions == set()
    assert env.writer.written == {("a", 0): [(pid, epoch, True)], ("b", 2): [(pid, epoch, True)]}
    assert env.writer.calls[0].coordinator_epoch == coord.coordinator_epoch
    last = env.log.records()[-1][1]
    assert last is not None and last.state is S.COMPLETE_COMMIT and last.partitions == frozenset()


@pytest.mark.parametrize(
    ("ending", "commit_retry", "abort_retry"),
    [
        (True, E.NONE, E.INVALID_TXN_STATE),
        (False, E.INVALID_TXN_STATE, E.NONE),
    ],
)
async def test_end_txn_retry_is_idempotent(
    env: Env, ending: bool, commit_retry: int, abort_retry: int
) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch)
    assert await coord.end_txn("tx", pid, epoch, ending) == E.NONE
    await coord.wait_for_markers()
    writes = len(env.log.records())
    assert await coord.end_txn("tx", pid, epoch, True) == commit_retry
    assert await coord.end_txn("tx", pid, epoch, False) == abort_retry
    assert len(env.log.records()) == writes


async def test_end_txn_prepare_abort_table(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch)
    env.writer.gate = asyncio.Event()
    assert await coord.end_txn("tx", pid, epoch, False) == E.NONE
    assert await coord.end_txn("tx", pid, epoch, False) == E.CONCURRENT_TRANSACTIONS
    assert await coord.end_txn("tx", pid, epoch, True) == E.INVALID_TXN_STATE
    env.writer.gate.set()
    await coord.wait_for_markers()


async def test_end_txn_errors(env: Env) -> None:
    coord = await env.coordinator()
    assert await coord.end_txn("", 1, 0, True) == E.INVALID_REQUEST
    assert await coord.end_txn("nope", 1, 0, True) == E.INVALID_PRODUCER_ID_MAPPING
    pid, epoch = await init(coord, "tx")
    # Empty: nothing to end.
    assert await coord.end_txn("tx", pid, epoch, True) == E.INVALID_TXN_STATE
    assert await coord.end_txn("tx", pid, epoch, False) == E.INVALID_TXN_STATE
    assert await coord.end_txn("tx", pid + 1, epoch, True) == E.INVALID_PRODUCER_ID_MAPPING
    assert await coord.end_txn("tx", pid, epoch + 1, True) == E.PRODUCER_FENCED
    assert await coord.end_txn("tx", pid, epoch - 1, True) == E.PRODUCER_FENCED
    await begin(coord, "tx", pid, epoch)
    env.log.append_gate = asyncio.Event()
    task = asyncio.create_task(coord.end_txn("tx", pid, epoch, True))
    await asyncio.sleep(0)
    assert await coord.end_txn("tx", pid, epoch, True) == E.CONCURRENT_TRANSACTIONS
    env.log.append_gate.set()
    assert await task == E.NONE
    await coord.wait_for_markers()


# --- markers --------------------------------------------------------------------------------------


async def test_markers_retried_and_unknown_partitions_dropped(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("a", 0), ("gone", 0), ("c", 0))
    env.writer.errors[("a", 0)] = [E.NOT_LEADER_OR_FOLLOWER, E.NOT_ENOUGH_REPLICAS, E.REQUEST_TIMED_OUT]
    env.writer.unknown.add(("gone", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    await coord.wait_for_markers()
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.COMPLETE_COMMIT
    assert env.writer.written[("a", 0)] == [(pid, epoch, True)]
    assert env.writer.written[("c", 0)] == [(pid, epoch, True)]  # written once, not on each retry
    assert ("gone", 0) not in env.writer.written
    assert [c.partitions for c in env.writer.calls][-1] == (("a", 0),)


async def test_obsolete_markers_stop(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("a", 0))
    env.writer.errors[("a", 0)] = [E.TRANSACTION_COORDINATOR_FENCED]
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    await coord.wait_for_markers()
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.PREPARE_COMMIT


async def test_complete_append_retried(env: Env) -> None:
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("a", 0))
    assert await coord.end_txn("tx", pid, epoch, False) == E.NONE
    env.log.fail_next = 2
    env.writer.gate.set()
    await coord.wait_for_markers()
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.COMPLETE_ABORT


# --- timeouts and expiry ---------------------------------------------------------------------------


async def test_timed_out_transaction_aborted_with_epoch_bump(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx", timeout=1000)
    await begin(coord, "tx", pid, epoch, ("a", 0))
    env.clock.advance(1000)
    await coord.tick()  # not yet: start + timeout < now is required
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.ONGOING
    env.clock.advance(coord.config.abort_timed_out_interval_ms)
    await coord.tick()
    await coord.wait_for_markers()
    assert meta.state is S.COMPLETE_ABORT and meta.producer_epoch == epoch + 1
    assert env.writer.written[("a", 0)] == [(pid, epoch + 1, False)]
    # The zombie is fenced everywhere at the coordinator.
    assert await coord.end_txn("tx", pid, epoch, True) == E.PRODUCER_FENCED
    assert await coord.add_partitions("tx", pid, epoch, [("a", 1)]) == E.PRODUCER_FENCED
    assert coord.verify_partitions("tx", pid, epoch, [("a", 0)]) == {("a", 0): E.PRODUCER_FENCED}


async def test_abort_timed_out_skips_fresh_and_pending(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "old", timeout=1000)
    await begin(coord, "old", pid, epoch)
    env.clock.advance(1001)
    pid2, epoch2 = await init(coord, "new", timeout=1000)
    await begin(coord, "new", pid2, epoch2)
    assert await coord.abort_timed_out_transactions() == ["old"]
    await coord.wait_for_markers()


async def test_transactional_id_expiry(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "idle")
    pid2, epoch2 = await init(coord, "open")
    await begin(coord, "open", pid2, epoch2)
    env.clock.advance(coord.config.transactional_id_expiration_ms)
    assert await coord.expire_transactional_ids() == ["idle"]
    assert coord.metadata("idle") is None and coord.metadata("open") is not None
    assert ("idle", None) in env.log.records()
    assert coord.describe("idle") == (E.TRANSACTIONAL_ID_NOT_FOUND, None)
    assert await coord.end_txn("idle", pid, epoch, True) == E.INVALID_PRODUCER_ID_MAPPING
    assert await coord.add_partitions("idle", pid, epoch, [("a", 0)]) == E.INVALID_PRODUCER_ID_MAPPING
    res = await coord.init_producer_id("idle", TIMEOUT_MS)
    assert res.error_code == E.NONE and res.producer_epoch == 0 and res.producer_id != pid
    # Expired ids stay gone after a restart.
    await coord.shutdown()
    coord2 = await env.coordinator()
    meta = coord2.metadata("idle")
    assert meta is not None and meta.producer_id == res.producer_id


async def test_expiry_failure_keeps_id(env: Env) -> None:
    coord = await env.coordinator()
    await init(coord, "idle")
    env.clock.advance(coord.config.transactional_id_expiration_ms + 1)
    env.log.fail_with = E.NOT_ENOUGH_REPLICAS
    assert await coord.expire_transactional_ids() == []
    meta = coord.metadata("idle")
    assert meta is not None and meta.pending_state is None and meta.state is S.EMPTY


async def test_tick_runs_jobs_by_interval(env: Env) -> None:
    env.config.transactional_id_expiration_ms = 1000
    coord = await env.coordinator()
    await init(coord, "idle")
    env.clock.advance(2000)
    await coord.tick()
    assert coord.metadata("idle") is not None  # the expiry job's interval has not passed
    env.clock.advance(coord.config.remove_expired_interval_ms)
    await coord.tick()
    assert coord.metadata("idle") is None


# --- loading and restarts ----------------------------------------------------------------------------


async def test_loading_answers_load_in_progress(env: Env) -> None:
    from coordinator.producer_ids import ProducerIdManager
    from coordinator.transaction import TransactionCoordinator

    coord = TransactionCoordinator(env.log, env.writer, ProducerIdManager(None), env.clock, env.config)
    assert coord.status is CoordinatorStatus.LOADING
    assert (await coord.init_producer_id("tx", TIMEOUT_MS)).error_code == E.COORDINATOR_LOAD_IN_PROGRESS
    assert await coord.add_partitions("tx", 1, 0, [("a", 0)]) == E.COORDINATOR_LOAD_IN_PROGRESS
    assert await coord.end_txn("tx", 1, 0, True) == E.COORDINATOR_LOAD_IN_PROGRESS
    assert coord.describe("tx")[0] == E.COORDINATOR_LOAD_IN_PROGRESS
    assert coord.list_transactions().error_code == E.COORDINATOR_LOAD_IN_PROGRESS
    # Idempotent producers do not need the transaction state.
    assert (await coord.init_producer_id(None, 0)).error_code == E.NONE
    await coord.load()
    await coord.shutdown()
    assert await coord.end_txn("tx", 1, 0, True) == E.NOT_COORDINATOR


@pytest.mark.parametrize("commit", [True, False])
async def test_reload_completes_prepared_transactions(env: Env, commit: bool) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("a", 0), ("b", 1))
    # The markers never get written: the broker "crashes" right after PrepareX is logged.
    env.writer.gate = asyncio.Event()
    assert await coord.end_txn("tx", pid, epoch, commit) == E.NONE
    await coord.shutdown()
    assert env.writer.written == {}
    env.writer.gate = None
    coord2 = await env.coordinator()
    meta = coord2.metadata("tx")
    assert meta is not None and meta.state is (S.PREPARE_COMMIT if commit else S.PREPARE_ABORT)
    assert await coord2.end_txn("tx", pid, epoch, commit) == E.CONCURRENT_TRANSACTIONS
    await coord2.wait_for_markers()
    assert meta.state is (S.COMPLETE_COMMIT if commit else S.COMPLETE_ABORT)
    assert env.writer.written == {tp: [(pid, epoch, commit)] for tp in [("a", 0), ("b", 1)]}
    assert await coord2.end_txn("tx", pid, epoch, commit) == E.NONE


async def test_reload_restores_state_and_timeout_abort(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx", timeout=5000)
    await begin(coord, "tx", pid, epoch, ("a", 0))
    await coord.shutdown()
    coord2 = await env.coordinator()
    meta = coord2.metadata("tx")
    assert meta is not None
    assert (meta.state, meta.producer_id, meta.producer_epoch, meta.timeout_ms, meta.partitions) == (
        S.ONGOING,
        pid,
        epoch,
        5000,
        {("a", 0)},
    )
    env.clock.advance(5001)
    assert await coord2.abort_timed_out_transactions() == ["tx"]
    await coord2.wait_for_markers()
    assert meta.state is S.COMPLETE_ABORT and meta.producer_epoch == epoch + 1


@pytest.mark.parametrize("unclean", [True, False])
async def test_reload_after_an_unclean_shutdown_aborts_open_transactions_with_data(env: Env, unclean: bool) -> None:
    """A transaction's Produce is answered before its data is durable (only its EndTxn
    waits for that), so after an unclean shutdown the open ones that wrote data are
    aborted and their producers fenced; one of offsets only, whose TxnOffsetCommit was
    durable, and a two-phase one (KIP-939) stay open, as after a clean shutdown."""
    env.config.two_phase_commit_enable = True
    coord = await env.coordinator()
    data_pid, data_epoch = await init(coord, "data")
    await begin(coord, "data", data_pid, data_epoch, ("a", 0), ("__consumer_offsets", 3))
    offsets_pid, offsets_epoch = await init(coord, "offsets")
    await begin(coord, "offsets", offsets_pid, offsets_epoch, ("__consumer_offsets", 3))
    prepared = await coord.init_producer_id("2pc", 1000, enable_2pc=True)
    await begin(coord, "2pc", prepared.producer_id, prepared.producer_epoch, ("a", 1))
    _, idle_epoch = await init(coord, "idle")
    await coord.shutdown()

    coord2 = await env.coordinator(after_unclean_shutdown=unclean)
    await coord2.wait_for_markers()
    states = {tid: (m.state, m.producer_epoch) for tid in ("data", "offsets", "2pc", "idle")
              if (m := coord2.metadata(tid)) is not None}
    assert states == {
        "data": (S.COMPLETE_ABORT, data_epoch + 1) if unclean else (S.ONGOING, data_epoch),
        "offsets": (S.ONGOING, offsets_epoch),
        "2pc": (S.ONGOING, prepared.producer_epoch),
        "idle": (S.EMPTY, idle_epoch),
    }
    if unclean:
        aborted = (data_pid, data_epoch + 1, False)
        assert env.writer.written == {("a", 0): [aborted], ("__consumer_offsets", 3): [aborted]}
        assert await coord2.end_txn("data", data_pid, data_epoch, True) == E.PRODUCER_FENCED
    else:
        assert env.writer.written == {}
        assert await coord2.end_txn("data", data_pid, data_epoch, True) == E.NONE
    assert await coord2.end_txn("offsets", offsets_pid, offsets_epoch, True) == E.NONE


async def test_producer_ids_never_repeat_across_restarts(tmp_path: object) -> None:
    from pathlib import Path

    env = Env(data_dir=Path(str(tmp_path)))
    seen: set[int] = set()
    for _ in range(3):
        coord = await env.coordinator()
        for i in range(7):
            res = await coord.init_producer_id(None, 0)
            assert res.producer_id not in seen
            seen.add(res.producer_id)
            pid, _ = await init(coord, f"tx-{len(seen)}-{i}")
            assert pid not in seen
            seen.add(pid)
        await coord.shutdown()


# --- KIP-664 ---------------------------------------------------------------------------------------------


async def test_describe(env: Env) -> None:
    coord = await env.coordinator()
    assert coord.describe("") == (E.INVALID_REQUEST, None)
    assert coord.describe("nope") == (E.TRANSACTIONAL_ID_NOT_FOUND, None)
    pid, epoch = await init(coord, "tx", timeout=7000)
    err, d = coord.describe("tx")
    assert err == E.NONE and d is not None
    assert (d.state, d.timeout_ms, d.start_timestamp, d.producer_id, d.producer_epoch) == (
        S.EMPTY,
        7000,
        -1,
        pid,
        epoch,
    )
    await begin(coord, "tx", pid, epoch, ("a", 0))
    _, d = coord.describe("tx")
    assert d is not None and d.state is S.ONGOING and d.start_timestamp == env.clock.now_ms()
    assert d.partitions == {("a", 0)}


async def test_list_transactions_filters(env: Env) -> None:
    coord = await env.coordinator()
    p1, e1 = await init(coord, "app-1")
    p2, e2 = await init(coord, "app-2")
    await init(coord, "other")
    await begin(coord, "app-1", p1, e1)
    env.clock.advance(10_000)
    await begin(coord, "app-2", p2, e2)

    def ids(res: object) -> set[str]:
        return {t.transactional_id for t in res.transactions}  # type: ignore[attr-defined]

    assert ids(coord.list_transactions()) == {"app-1", "app-2", "other"}
    res = coord.list_transactions(state_filters=["Ongoing", "Bogus"])
    assert ids(res) == {"app-1", "app-2"} and res.unknown_state_filters == ["Bogus"]
    assert ids(coord.list_transactions(state_filters=["Bogus"])) == set()
    assert ids(coord.list_transactions(producer_id_filters=[p2])) == {"app-2"}
    # Running longer than 5s: app-1 (10s); Empty ids have no start time and always pass.
    assert ids(coord.list_transactions(duration_filter_ms=5000)) == {"app-1", "other"}
    assert ids(coord.list_transactions(state_filters=["Ongoing"], duration_filter_ms=5000)) == {"app-1"}
    assert ids(coord.list_transactions(transactional_id_pattern="app-.*")) == {"app-1", "app-2"}
    assert ids(coord.list_transactions(transactional_id_pattern="app")) == set()  # a full match
    assert ids(coord.list_transactions(transactional_id_pattern="")) == {"app-1", "app-2", "other"}
    assert coord.list_transactions(transactional_id_pattern="(").error_code == E.INVALID_REGULAR_EXPRESSION


# --- KIP-939 two-phase commit -----------------------------------------------------------------


async def test_two_phase_commit_transaction_is_never_timed_out(env: Env) -> None:
    env.config.two_phase_commit_enable = True
    coord = await env.coordinator()
    res = await coord.init_producer_id("2pc", 1000, enable_2pc=True)
    assert res.error_code == E.NONE
    await begin(coord, "2pc", res.producer_id, res.producer_epoch, ("a", 0))
    pid, epoch = await init(coord, "plain", timeout=1000)
    await begin(coord, "plain", pid, epoch, ("a", 1))
    # Far beyond any timeout, and across a reload of the log: only the plain one is aborted.
    env.clock.advance(30 * 24 * 3600 * 1000)
    coord2 = await env.coordinator()
    assert await coord2.abort_timed_out_transactions() == ["plain"]
    await coord2.wait_for_markers()
    meta = coord2.metadata("2pc")
    assert meta is not None and meta.state is S.ONGOING and meta.producer_epoch == res.producer_epoch
    # Taken over by a new instance, which gets the next epoch and the prepared one's identity.
    kept = await coord2.init_producer_id("2pc", 1000, enable_2pc=True, keep_prepared_txn=True)
    assert (kept.error_code, kept.producer_epoch) == (E.NONE, res.producer_epoch + 1)
    assert (kept.ongoing_txn_producer_id, kept.ongoing_txn_producer_epoch) == (res.producer_id, res.producer_epoch)
    assert meta.state is S.ONGOING and meta.partitions == {("a", 0)}


async def test_two_phase_commit_needs_the_setting(env: Env) -> None:
    coord = await env.coordinator()
    res = await coord.init_producer_id("2pc", 1000, enable_2pc=True)
    assert res.error_code == E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    assert env.log.records() == []
