"""AddPartitionsToTxn answered before its record is durable (`answer_before_durable`): the
state changes only once the record is durable, and every reader of the add waits for it.
Appends wait on the log's gate; time is a ManualClock."""

from __future__ import annotations

import asyncio

import pytest

from coordinator.transaction import TransactionCoordinator, TransactionState
from protocol.errors import ErrorCode
from tests.unit.coordinator.transaction.txn_helpers import Env, answered, begin, init, run_ready, txn_config

S = TransactionState
E = ErrorCode
TP, OTHER = ("t", 0), ("t", 1)


@pytest.fixture
def env() -> Env:
    return Env(config=txn_config(num_partitions=4, retry_backoff_ms=0, concurrent_wait_ms=2_000))


async def _answered_early(env: Env, coord: TransactionCoordinator, pid: int, epoch: int) -> None:
    """An add of TP answered while its append waits on the gate."""
    env.log.append_gate = asyncio.Event()
    assert await answered(coord.add_partitions("tx", pid, epoch, [TP], answer_before_durable=True)) == E.NONE
    meta = coord.metadata("tx")
    assert meta is not None and meta.pending and meta.state is not S.ONGOING


async def test_verification_waits_for_the_add_then_answers_from_the_state(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await _answered_early(env, coord, pid, epoch)
    verify = asyncio.create_task(coord.verify_when_settled("tx", pid, epoch, [TP, OTHER]))
    await run_ready()
    assert not verify.done()
    assert env.log.append_gate is not None
    env.log.append_gate.set()
    assert await verify == {TP: E.NONE, OTHER: E.TRANSACTION_ABORTABLE}
    assert [t.state for _, t in env.log.records() if t is not None][-1] is S.ONGOING


async def test_a_failed_add_refuses_the_produce(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await _answered_early(env, coord, pid, epoch)
    verify = asyncio.create_task(coord.verify_when_settled("tx", pid, epoch, [TP]))
    await run_ready()
    env.log.fail_with = E.NOT_LEADER_OR_FOLLOWER
    assert env.log.append_gate is not None
    env.log.append_gate.set()
    assert await verify == {TP: E.TRANSACTION_ABORTABLE}
    meta = coord.metadata("tx")
    assert meta is not None and not meta.pending and meta.state is S.EMPTY


async def test_an_add_still_pending_at_the_deadline_is_retriable(env: Env) -> None:
    env.config.concurrent_wait_ms = 30
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await _answered_early(env, coord, pid, epoch)
    verify = asyncio.create_task(coord.verify_when_settled("tx", pid, epoch, [TP]))
    await run_ready()
    env.clock.advance(30)
    assert await answered(verify) == {TP: E.CONCURRENT_TRANSACTIONS}


async def test_resigning_while_the_add_is_pending(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await _answered_early(env, coord, pid, epoch)
    verify = asyncio.create_task(coord.verify_when_settled("tx", pid, epoch, [TP]))
    await run_ready()
    await coord.shutdown()
    assert await answered(verify) == {TP: E.NOT_COORDINATOR}


@pytest.mark.parametrize("request_kind", ["end_txn", "add_partitions"])
async def test_requests_on_the_id_wait_for_the_pending_add(env: Env, request_kind: str) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await _answered_early(env, coord, pid, epoch)
    task = asyncio.create_task(
        coord.end_txn("tx", pid, epoch, True)
        if request_kind == "end_txn"
        else coord.add_partitions("tx", pid, epoch, [OTHER])
    )
    await run_ready()
    assert not task.done()  # waiting, not answered CONCURRENT_TRANSACTIONS
    assert env.log.append_gate is not None
    env.log.append_gate.set()
    assert await task == E.NONE
    # The add was applied first; the waiting request then acted on it.
    written = [(t.state, t.partitions) for _, t in env.log.records() if t is not None][1:]
    if request_kind == "end_txn":
        assert written == [(S.ONGOING, {TP}), (S.PREPARE_COMMIT, {TP})]
    else:
        assert written == [(S.ONGOING, {TP}), (S.ONGOING, {TP, OTHER})]


async def test_the_next_add_merges_with_the_completion_and_is_answered_early(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, TP)
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    await run_ready()  # the markers are durable; CompleteCommit is held for the next add
    await _answered_early(env, coord, pid, epoch)
    assert env.log.append_gate is not None
    env.log.append_gate.set()
    assert await coord.verify_when_settled("tx", pid, epoch, [TP]) == {TP: E.NONE}
    states = [t.state for _, t in env.log.records() if t is not None]
    assert states[-2:] == [S.COMPLETE_COMMIT, S.ONGOING]


async def test_an_append_failing_for_a_while_is_made_again_and_the_produce_waits_for_it(env: Env) -> None:
    """The client was told NONE and cannot retry its add: the coordinator appends it again
    (as the client's retries would have in Kafka), and the Produce's verification is refused
    retriably meanwhile rather than INVALID_TXN_STATE."""
    env.config.concurrent_wait_ms = 30
    env.config.retry_backoff_ms = 100
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    env.log.fail_next = 2  # NOT_ENOUGH_REPLICAS from `__transaction_state`, twice
    assert await answered(coord.add_partitions("tx", pid, epoch, [TP], answer_before_durable=True)) == E.NONE
    verify = asyncio.create_task(coord.verify_when_settled("tx", pid, epoch, [TP]))
    await run_ready()
    env.clock.advance(30)
    assert await answered(verify) == {TP: E.CONCURRENT_TRANSACTIONS}
    meta = coord.metadata("tx")
    assert meta is not None and meta.pending
    env.clock.advance(70)  # the second append, failing too
    await run_ready()
    assert env.log.fail_next == 0
    assert meta.pending
    env.clock.advance(100)  # the third, written
    await run_ready()
    assert not meta.pending and meta.state is S.ONGOING
    assert await answered(coord.verify_when_settled("tx", pid, epoch, [TP])) == {TP: E.NONE}
    assert [(t.state, t.partitions) for _, t in env.log.records() if t is not None][1:] == [(S.ONGOING, {TP})]


async def test_an_append_still_failing_after_the_retry_window_refuses_the_produce(env: Env) -> None:
    env.config.retry_backoff_ms = 100
    env.config.answered_add_retry_ms = 200
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    env.log.fail_next = 10
    assert await answered(coord.add_partitions("tx", pid, epoch, [TP], answer_before_durable=True)) == E.NONE
    await run_ready()  # the first append, at 0 ms
    for _ in range(2):
        env.clock.advance(100)
        await run_ready()
    assert env.log.fail_next == 7  # at 0, 100 and 200 ms; not again
    assert await answered(coord.verify_when_settled("tx", pid, epoch, [TP])) == {TP: E.TRANSACTION_ABORTABLE}
    meta = coord.metadata("tx")
    assert meta is not None and not meta.pending and meta.state is S.EMPTY
