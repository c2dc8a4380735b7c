"""A request cancelled at any await (its client disconnected) leaves the same state as one
that was answered: a transition whose record is appended takes effect, one whose append
fails is released, and the next request for the id is served normally. Appends block on
the log's gate so that the cancellation lands mid-append."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

from coordinator.transaction import TransactionState
from protocol.errors import ErrorCode
from tests.unit.coordinator.transaction.txn_helpers import (
    TIMEOUT_MS,
    Env,
    answered,
    begin,
    init,
    run_ready,
    txn_config,
)

S = TransactionState
E = ErrorCode
OFFSETS_PARTITION = ("__consumer_offsets", 7)


@pytest.fixture
def env() -> Env:
    return Env(config=txn_config(num_partitions=4, retry_backoff_ms=0, concurrent_wait_ms=500))


async def cancel_mid_append(env: Env, request: Coroutine[Any, Any, Any]) -> None:
    """Start `request`, let it reach its append (held by the gate), and cancel it there."""
    env.log.append_gate = asyncio.Event()
    task = asyncio.create_task(request)
    await run_ready()
    assert not task.done(), "the request should be blocked in its append"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def release_appends(env: Env) -> None:
    assert env.log.append_gate is not None
    env.log.append_gate.set()
    env.log.append_gate = None


def logged_states(env: Env) -> list[TransactionState]:
    return [t.state for _, t in env.log.records() if t is not None]


async def test_cancelled_first_init_producer_id_takes_effect(env: Env) -> None:
    coord = await env.coordinator()
    await cancel_mid_append(env, coord.init_producer_id("tx", TIMEOUT_MS))
    # The next InitProducerId for the id waits for the append in flight, then is served.
    nxt = asyncio.create_task(coord.init_producer_id("tx", TIMEOUT_MS))
    await run_ready()
    assert not nxt.done()
    release_appends(env)
    res = await answered(nxt)
    assert (res.error_code, res.producer_epoch) == (E.NONE, 1)
    assert logged_states(env) == [S.EMPTY, S.EMPTY]
    meta = coord.metadata("tx")
    assert meta is not None and meta.pending_state is None and meta.producer_epoch == 1


async def test_cancelled_first_init_producer_id_whose_append_fails_leaves_nothing(env: Env) -> None:
    coord = await env.coordinator()
    env.log.fail_next = 1
    await cancel_mid_append(env, coord.init_producer_id("tx", TIMEOUT_MS))
    release_appends(env)
    await run_ready()
    assert coord.metadata("tx") is None
    res = await answered(coord.init_producer_id("tx", TIMEOUT_MS))
    assert (res.error_code, res.producer_epoch) == (E.NONE, 0)


async def test_cancelled_epoch_bump_takes_effect(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await cancel_mid_append(env, coord.init_producer_id("tx", TIMEOUT_MS))
    release_appends(env)
    await run_ready()
    meta = coord.metadata("tx")
    assert meta is not None and meta.pending_state is None and meta.producer_epoch == epoch + 1
    # The bumped epoch is the producer's: the old one is fenced, the new one works.
    assert await answered(coord.add_partitions("tx", pid, epoch, [("t", 0)])) == E.PRODUCER_FENCED
    assert await answered(coord.add_partitions("tx", pid, epoch + 1, [("t", 0)])) == E.NONE


@pytest.mark.parametrize("partition", [("t", 0), OFFSETS_PARTITION], ids=["AddPartitions", "AddOffsets"])
async def test_cancelled_add_partitions_takes_effect(env: Env, partition: tuple[str, int]) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await cancel_mid_append(env, coord.add_partitions("tx", pid, epoch, [partition]))
    nxt = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 1)]))
    await run_ready()
    assert not nxt.done()
    release_appends(env)
    assert await answered(nxt) == E.NONE
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.ONGOING and meta.partitions == {partition, ("t", 1)}
    assert await answered(coord.end_txn("tx", pid, epoch, True)) == E.NONE
    await answered(coord.wait_for_markers())
    assert env.writer.written[partition] == [(pid, epoch, True)]


@pytest.mark.parametrize("partition", [("t", 0), OFFSETS_PARTITION], ids=["AddPartitions", "AddOffsets"])
async def test_cancelled_add_partitions_whose_append_fails_is_released(
    env: Env, partition: tuple[str, int]
) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    env.log.fail_next = 1
    await cancel_mid_append(env, coord.add_partitions("tx", pid, epoch, [partition]))
    release_appends(env)
    await run_ready()
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.EMPTY and meta.pending_state is None
    assert await answered(coord.add_partitions("tx", pid, epoch, [partition])) == E.NONE


@pytest.mark.parametrize("commit", [True, False])
async def test_cancelled_end_txn_still_completes(env: Env, commit: bool) -> None:
    """PrepareX written after the client left: the markers and CompleteX still follow, and
    the client's retry is answered as if it had seen the first answer."""
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("t", 0))
    await cancel_mid_append(env, coord.end_txn("tx", pid, epoch, commit))
    retry = asyncio.create_task(coord.end_txn("tx", pid, epoch, commit))
    await run_ready()
    assert not retry.done()
    release_appends(env)
    assert await answered(retry) == E.NONE
    await answered(coord.wait_for_markers())
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is (S.COMPLETE_COMMIT if commit else S.COMPLETE_ABORT)
    assert env.writer.written[("t", 0)] == [(pid, epoch, commit)]
    assert await answered(coord.add_partitions("tx", pid, epoch, [("t", 1)])) == E.NONE


async def test_cancelled_end_txn_whose_append_fails_is_released(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("t", 0))
    env.log.fail_next = 1
    await cancel_mid_append(env, coord.end_txn("tx", pid, epoch, True))
    release_appends(env)
    await run_ready()
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.ONGOING and meta.pending_state is None
    assert env.writer.calls == []
    assert await answered(coord.end_txn("tx", pid, epoch, True)) == E.NONE
    await answered(coord.wait_for_markers())
    assert meta.state is S.COMPLETE_COMMIT


@pytest.mark.parametrize("fails", [False, True], ids=["written", "failed"])
async def test_cancelled_merged_complete_and_add_partitions(env: Env, fails: bool) -> None:
    """The AddPartitionsToTxn that took over a held-back CompleteX is cancelled mid-append:
    written, both records take effect; failed, the completion is still finished (without
    writing the markers again) and the producer's retry is served."""
    env.config.complete_merge_window_ms = 60_000
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    await run_ready()
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.PREPARE_COMMIT  # CompleteCommit held back
    marker_calls = len(env.writer.calls)
    env.log.fail_next = 1 if fails else 0
    await cancel_mid_append(env, coord.add_partitions("tx", pid, epoch, [("t", 1)]))
    release_appends(env)
    await answered(coord.wait_for_markers())
    if fails:
        assert meta.state is S.COMPLETE_COMMIT and meta.partitions == set()
        assert logged_states(env)[-2:] == [S.PREPARE_COMMIT, S.COMPLETE_COMMIT]
    else:
        assert meta.state is S.ONGOING and meta.partitions == {("t", 1)}
        assert logged_states(env)[-3:] == [S.PREPARE_COMMIT, S.COMPLETE_COMMIT, S.ONGOING]
    assert meta.pending_state is None
    assert len(env.writer.calls) == marker_calls
    assert await answered(coord.add_partitions("tx", pid, epoch, [("t", 1)])) == E.NONE
    assert await answered(coord.end_txn("tx", pid, epoch, False)) == E.NONE
    await answered(coord.wait_for_markers())
    assert meta.state is S.COMPLETE_ABORT


async def test_cancelled_fencing_init_still_aborts(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("t", 0))
    await cancel_mid_append(env, coord.init_producer_id("tx", TIMEOUT_MS))
    release_appends(env)
    await answered(coord.wait_for_markers())
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.COMPLETE_ABORT
    assert env.writer.written[("t", 0)] == [(pid, epoch + 1, False)]
    res = await answered(coord.init_producer_id("tx", TIMEOUT_MS))
    assert (res.error_code, res.producer_id, res.producer_epoch) == (E.NONE, pid, epoch + 2)


async def test_cancelled_wait_for_a_busy_id_leaves_the_id_free(env: Env) -> None:
    """Requests cancelled while waiting (for an append, then for a completion) leave no
    trace: the work they waited for ends normally and the next request is served."""
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    env.log.append_gate = asyncio.Event()
    first = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 0)]))
    await run_ready()
    waiting = asyncio.create_task(coord.end_txn("tx", pid, epoch, True))
    await run_ready()
    assert not waiting.done()
    waiting.cancel()
    release_appends(env)
    assert await answered(first) == E.NONE
    with pytest.raises(asyncio.CancelledError):
        await waiting
    env.writer.gate = asyncio.Event()
    assert await answered(coord.end_txn("tx", pid, epoch, True)) == E.NONE
    waiting = asyncio.create_task(coord.add_partitions("tx", pid, epoch, [("t", 1)]))
    await run_ready()
    assert not waiting.done()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    env.writer.gate.set()
    await answered(coord.wait_for_markers())
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.COMPLETE_COMMIT and meta.pending_state is None
    assert await answered(coord.add_partitions("tx", pid, epoch, [("t", 1)])) == E.NONE
    # Nothing the cancelled requests armed is left on the clock.
    assert env.clock.next_deadline_ms() is None
