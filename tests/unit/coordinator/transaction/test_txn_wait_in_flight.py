"""Requests that find their transactional id busy wait for the work in flight (the previous
transaction's markers and CompleteX, or a transition being appended) instead of answering
CONCURRENT_TRANSACTIONS at once; the answer is the one a retry after the work would get.
Time is a ManualClock: a wait ends when the work does or when the clock is moved."""

from __future__ import annotations

import asyncio

import pytest

from coordinator.transaction import TransactionCoordinator, TransactionState
from protocol.errors import ErrorCode
from tests.unit.coordinator.transaction.txn_helpers import (
    TIMEOUT_MS,
    Env,
    answered,
    begin,
    begun_with_markers_held,
    init,
    run_ready,
    txn_config,
)

S = TransactionState
E = ErrorCode


@pytest.fixture
def env() -> Env:
    return Env(config=txn_config(num_partitions=4, retry_backoff_ms=0, concurrent_wait_ms=2_000))


async def _release_soon(gate: asyncio.Event) -> None:
    """Open the gate once the request under test has started waiting."""
    await run_ready()
    gate.set()


async def test_add_partitions_waits_for_previous_completion(env: Env) -> None:
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.PREPARE_COMMIT
    task = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 1)]))
    await run_ready()
    assert not task.done()  # waiting, not answered CONCURRENT_TRANSACTIONS
    env.writer.gate.set()
    assert await task == E.NONE
    # The previous transaction completed first, then the new one started with only its partition.
    states = [t.state for _, t in env.log.records() if t is not None]
    assert states[-2:] == [S.COMPLETE_COMMIT, S.ONGOING]
    assert meta.state is S.ONGOING and meta.partitions == {("t", 1)}
    assert env.writer.written[("t", 0)] == [(pid, epoch, True)]


async def test_add_partitions_gets_concurrent_transactions_when_completion_is_late(env: Env) -> None:
    env.config.concurrent_wait_ms = 30
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, False) == E.NONE
    task = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 1)]))
    await run_ready()
    env.clock.advance(29)
    await run_ready()
    assert not task.done()  # still within concurrent_wait_ms
    env.clock.advance(1)
    assert await answered(task) == E.CONCURRENT_TRANSACTIONS
    env.writer.gate.set()
    await coord.wait_for_markers()
    assert await coord.add_partitions("tx", pid, epoch, [("t", 1)]) == E.NONE


async def test_wait_answers_what_a_retry_would(env: Env) -> None:
    """After the wait the checks run again in full: a wrong epoch is still fenced."""
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    release = asyncio.create_task(_release_soon(env.writer.gate))
    # A retried EndTxn(commit) waits for CompleteCommit and is answered NONE.
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.COMPLETE_COMMIT
    await release


async def test_end_txn_abort_while_committing_waits_then_invalid_state(env: Env) -> None:
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    # PrepareCommit + abort is INVALID_TXN_STATE at once: nothing to wait for.
    assert await coord.end_txn("tx", pid, epoch, False) == E.INVALID_TXN_STATE
    env.writer.gate.set()
    await coord.wait_for_markers()


async def test_init_producer_id_waits_for_completion(env: Env) -> None:
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    release = asyncio.create_task(_release_soon(env.writer.gate))
    res = await coord.init_producer_id("tx", TIMEOUT_MS)
    assert (res.error_code, res.producer_id, res.producer_epoch) == (E.NONE, pid, epoch + 1)
    await release


async def test_init_producer_id_fencing_an_open_transaction_answers_at_once(env: Env) -> None:
    """The fence itself is answered CONCURRENT_TRANSACTIONS as Kafka does; the retry that
    arrives while the abort is written waits for it."""
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    assert (await coord.init_producer_id("tx", TIMEOUT_MS)).error_code == E.CONCURRENT_TRANSACTIONS
    release = asyncio.create_task(_release_soon(env.writer.gate))
    res = await coord.init_producer_id("tx", TIMEOUT_MS)
    assert (res.error_code, res.producer_id, res.producer_epoch) == (E.NONE, pid, epoch + 2)
    assert env.writer.written[("t", 0)] == [(pid, epoch + 1, False)]
    await release


async def test_waiting_for_a_pending_append(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    env.log.append_gate = asyncio.Event()
    first = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 0)]))
    await asyncio.sleep(0)
    second = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 1)]))
    await run_ready()
    assert not second.done()
    env.log.append_gate.set()
    assert await first == E.NONE
    assert await second == E.NONE
    meta = coord.metadata("tx")
    assert meta is not None and meta.partitions == {("t", 0), ("t", 1)}


async def test_failed_append_wakes_waiters_to_retry(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    env.log.append_gate = asyncio.Event()
    env.log.fail_next = 1
    first = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 0)]))
    await asyncio.sleep(0)
    second = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 1)]))
    await asyncio.sleep(0)
    env.log.append_gate.set()
    assert await first == E.COORDINATOR_NOT_AVAILABLE
    assert await second == E.NONE


async def test_obsolete_markers_end_the_wait(env: Env) -> None:
    """Markers answered as obsolete leave the transaction prepared with nothing in flight:
    a waiting request gets CONCURRENT_TRANSACTIONS then, not after the whole wait."""
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    env.writer.errors[("t", 0)] = [E.INVALID_PRODUCER_EPOCH]
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    release = asyncio.create_task(_release_soon(env.writer.gate))
    # Answered as soon as the markers are found obsolete, without the clock moving.
    assert await answered(coord.add_partitions("tx", pid, epoch, [("t", 1)])) == E.CONCURRENT_TRANSACTIONS
    await release


async def test_shutdown_ends_the_wait(env: Env) -> None:
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    task = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 1)]))
    await run_ready()
    assert not task.done()
    await coord.shutdown()
    assert await answered(task) == E.NOT_COORDINATOR


async def test_no_wait_when_disabled(env: Env) -> None:
    env.config.concurrent_wait_ms = 0
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    assert await coord.add_partitions("tx", pid, epoch, [("t", 1)]) == E.CONCURRENT_TRANSACTIONS
    env.writer.gate.set()
    await coord.wait_for_markers()


# --- CompleteX written together with the next transaction's Ongoing ---------------------------


def _count_appends(env: Env) -> list[int]:
    """Records per append call made to the log from now on."""
    sizes: list[int] = []
    real = env.log.append

    async def counting(partition: int, records: list[tuple[bytes, bytes | None]], **kw: bool) -> None:
        sizes.append(len(records))
        await real(partition, records, **kw)

    env.log.append = counting  # type: ignore[method-assign]
    return sizes


async def test_next_add_partitions_writes_complete_and_ongoing_in_one_batch(env: Env) -> None:
    env.config.complete_merge_window_ms = 10_000
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("t", 0))
    sizes = _count_appends(env)
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    for _ in range(5):
        await asyncio.sleep(0)
    assert env.writer.written[("t", 0)] == [(pid, epoch, True)]  # markers durable
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.PREPARE_COMMIT  # CompleteCommit held back
    assert await coord.add_partitions("tx", pid, epoch, [("t", 1)]) == E.NONE
    assert sizes == [1, 2]  # PrepareCommit, then CompleteCommit + Ongoing in one batch
    states = [t.state for _, t in env.log.records() if t is not None]
    assert states[-3:] == [S.PREPARE_COMMIT, S.COMPLETE_COMMIT, S.ONGOING]
    assert meta.state is S.ONGOING and meta.partitions == {("t", 1)}
    await answered(coord.wait_for_markers())
    # The next transaction completes on its own, with its own markers.
    assert await coord.end_txn("tx", pid, epoch, False) == E.NONE
    await answered(coord.wait_for_markers())
    assert env.writer.written[("t", 1)] == [(pid, epoch, False)]
    assert meta.state is S.COMPLETE_ABORT
    # A restart reads the same history.
    coord2 = await env.coordinator()
    again = coord2.metadata("tx")
    assert again is not None and again.state is S.COMPLETE_ABORT


async def test_add_partitions_during_the_markers_waits_for_them_and_merges(env: Env) -> None:
    """A producer faster than the markers: its next AddPartitionsToTxn arrives while they
    are being written. It waits for them, then writes CompleteCommit with its Ongoing in one
    batch, rather than having CompleteCommit written alone first (a second fsync round)."""
    env.config.complete_merge_window_ms = 10_000
    env.config.concurrent_wait_ms = 2_000
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    sizes = _count_appends(env)
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    task = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 1)]))
    await run_ready()
    assert not task.done() and env.writer.written.get(("t", 0)) is None  # markers held
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.PREPARE_COMMIT
    env.writer.gate.set()
    assert await answered(task) == E.NONE
    assert env.writer.written[("t", 0)] == [(pid, epoch, True)]
    assert sizes == [1, 2]  # PrepareCommit, then CompleteCommit + Ongoing in one batch
    states = [t.state for _, t in env.log.records() if t is not None]
    assert states[-3:] == [S.PREPARE_COMMIT, S.COMPLETE_COMMIT, S.ONGOING]
    assert meta.state is S.ONGOING and meta.partitions == {("t", 1)}
    await answered(coord.wait_for_markers())  # the taken-over completion wrote nothing more
    assert sizes == [1, 2]
    coord2 = await env.coordinator()
    again = coord2.metadata("tx")
    assert again is not None and again.state is S.ONGOING and again.partitions == {("t", 1)}


async def test_end_txn_during_the_markers_still_has_complete_written_at_once(env: Env) -> None:
    """Only AddPartitionsToTxn can take CompleteX over; a retried EndTxn waits for it."""
    env.config.complete_merge_window_ms = 10_000
    env.config.concurrent_wait_ms = 2_000
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    sizes = _count_appends(env)
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    task = asyncio.create_task(coord.end_txn("tx", pid, epoch, True))
    await run_ready()
    assert not task.done()
    env.writer.gate.set()
    assert await answered(task) == E.NONE
    assert sizes == [1, 1]  # PrepareCommit, then CompleteCommit alone, without the window
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.COMPLETE_COMMIT


async def test_complete_is_written_after_the_window_without_a_next_request(env: Env) -> None:
    env.config.complete_merge_window_ms = 20
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    meta = coord.metadata("tx")
    assert meta is not None
    await run_ready()
    assert env.writer.written[("t", 0)] == [(pid, epoch, True)]
    env.clock.advance(19)
    await run_ready()
    assert meta.state is S.PREPARE_COMMIT  # held back for the window
    env.clock.advance(1)
    await run_ready()
    assert meta.state is S.COMPLETE_COMMIT


async def test_a_waiting_request_has_the_held_back_complete_written_at_once(env: Env) -> None:
    env.config.complete_merge_window_ms = 60_000
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    # A retried EndTxn: answered NONE once CompleteCommit is written, without the window
    # (the clock never moves here).
    assert await answered(coord.end_txn("tx", pid, epoch, True)) == E.NONE
    res = await answered(coord.init_producer_id("tx", TIMEOUT_MS))
    assert (res.error_code, res.producer_epoch) == (E.NONE, epoch + 1)


async def test_failed_merged_append_still_completes_without_rewriting_markers(env: Env) -> None:
    env.config.complete_merge_window_ms = 60_000
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    for _ in range(5):
        await asyncio.sleep(0)
    calls = len(env.writer.calls)
    env.log.fail_next = 1
    assert await coord.add_partitions("tx", pid, epoch, [("t", 1)]) == E.COORDINATOR_NOT_AVAILABLE
    await answered(coord.wait_for_markers())
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.COMPLETE_COMMIT and meta.partitions == set()
    assert len(env.writer.calls) == calls
    assert await coord.add_partitions("tx", pid, epoch, [("t", 1)]) == E.NONE


async def test_fenced_producer_does_not_merge(env: Env) -> None:
    env.config.complete_merge_window_ms = 60_000
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    for _ in range(5):
        await asyncio.sleep(0)
    assert await coord.add_partitions("tx", pid, epoch - 1, [("t", 1)]) == E.PRODUCER_FENCED
    assert await coord.add_partitions("tx", pid + 1, epoch, [("t", 1)]) == E.INVALID_PRODUCER_ID_MAPPING
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.PREPARE_COMMIT
    await answered(coord.wait_for_markers())
    assert meta.state is S.COMPLETE_COMMIT


# --- a producer's pipelined requests are handled in the order they arrived --------------------


async def commit_then_pipelined_add_and_abort(
    env: Env,
) -> tuple[TransactionCoordinator, int, int, asyncio.Task[E], asyncio.Task[E]]:
    """A commit whose markers are held, then, as librdkafka's abort_transaction() sends them,
    an AddPartitionsToTxn of the next transaction and an EndTxn(abort) right behind it."""
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    add = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 1)], answer_before_durable=True))
    await asyncio.sleep(0)
    abort = asyncio.create_task(coord.end_txn("tx", pid, epoch, False))
    await run_ready()
    return coord, pid, epoch, add, abort


async def test_abort_pipelined_behind_a_waiting_add_partitions_aborts_the_new_transaction(env: Env) -> None:
    """librdkafka's abort_transaction() sends EndTxn(abort) as soon as an AddPartitionsToTxn
    of the transaction was sent, without waiting for its answer; both go over the same
    connection. Kafka handles them one at a time, so the abort finds the transaction the add
    started (Ongoing). Here the add waits for the previous commit's markers: the abort must
    wait behind it, not find PrepareCommit and answer INVALID_TXN_STATE (fatal for the
    producer)."""
    coord, pid, epoch, add, abort = await commit_then_pipelined_add_and_abort(env)
    assert not add.done() and not abort.done()  # both wait for the markers, in order
    env.writer.gate.set()
    assert await answered(add) == E.NONE
    assert await answered(abort) == E.NONE
    await answered(coord.wait_for_markers())
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.COMPLETE_ABORT
    assert env.writer.written[("t", 0)] == [(pid, epoch, True)]
    assert env.writer.written[("t", 1)] == [(pid, epoch, False)]
    states = [t.state for _, t in env.log.records() if t is not None]
    assert states[-4:] == [S.COMPLETE_COMMIT, S.ONGOING, S.PREPARE_ABORT, S.COMPLETE_ABORT]


async def test_the_wait_behind_earlier_requests_is_bounded_by_concurrent_wait_ms(env: Env) -> None:
    """The markers never come: the add answers CONCURRENT_TRANSACTIONS at its deadline, and
    the abort behind it then finds PrepareCommit, as Kafka's would right after that answer."""
    env.config.concurrent_wait_ms = 30
    coord, _pid, _epoch, add, abort = await commit_then_pipelined_add_and_abort(env)
    env.clock.advance(29)
    await run_ready()
    assert not add.done() and not abort.done()
    env.clock.advance(1)
    assert await answered(add) == E.CONCURRENT_TRANSACTIONS
    assert await answered(abort) == E.INVALID_TXN_STATE
    env.writer.gate.set()
    await answered(coord.wait_for_markers())
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.COMPLETE_COMMIT


async def test_requests_of_other_ids_do_not_wait(env: Env) -> None:
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("t", 0))
    other_pid, other_epoch = await init(coord, "other")
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    add = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 1)], answer_before_durable=True))
    await run_ready()
    assert not add.done()
    assert await answered(coord.add_partitions("other", other_pid, other_epoch, [("t", 2)])) == E.NONE
    env.writer.gate.set()
    assert await answered(add) == E.NONE
