"""The coordinator's timers run on the injected clock: marker and CompleteX retries wait
`retry_backoff_ms` of it, and the broker's tick loop runs the timeout job as it moves."""

from __future__ import annotations

import asyncio

import pytest

from coordinator.transaction import TransactionState
from coordinator.transaction.service import TICK_MS, run_ticks
from protocol.errors import ErrorCode
from tests.unit.coordinator.transaction.txn_helpers import (
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
BACKOFF_MS = 100


@pytest.fixture
def env() -> Env:
    return Env(config=txn_config(num_partitions=4, retry_backoff_ms=BACKOFF_MS, concurrent_wait_ms=0))


async def test_marker_retry_waits_the_backoff_on_the_clock(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("a", 0))
    env.writer.errors[("a", 0)] = [E.NOT_LEADER_OR_FOLLOWER]
    assert await coord.end_txn("tx", pid, epoch, True) == E.NONE
    await run_ready()
    assert len(env.writer.calls) == 1 and ("a", 0) not in env.writer.written
    env.clock.advance(BACKOFF_MS - 1)
    await run_ready()
    assert len(env.writer.calls) == 1  # still backing off
    env.clock.advance(1)
    await run_ready()
    assert env.writer.written[("a", 0)] == [(pid, epoch, True)]
    await answered(coord.wait_for_markers())
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.COMPLETE_COMMIT


async def test_complete_append_retry_waits_the_backoff_on_the_clock(env: Env) -> None:
    env.config.complete_merge_window_ms = 0
    coord, pid, epoch = await begun_with_markers_held(env, "tx", ("a", 0))
    assert await coord.end_txn("tx", pid, epoch, False) == E.NONE
    env.log.fail_next = 1  # the CompleteAbort append fails once
    env.writer.gate.set()
    await run_ready()
    meta = coord.metadata("tx")
    assert meta is not None and meta.state is S.PREPARE_ABORT and meta.pending_state is None
    env.clock.advance(BACKOFF_MS)
    await run_ready()
    assert meta.state is S.COMPLETE_ABORT


async def test_tick_loop_aborts_timed_out_transactions_as_the_clock_moves(env: Env) -> None:
    env.config.abort_timed_out_interval_ms = 500
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx", timeout=1000)
    await begin(coord, "tx", pid, epoch, ("a", 0))
    ticks = asyncio.create_task(run_ticks(coord))
    try:
        meta = coord.metadata("tx")
        assert meta is not None
        env.clock.advance(TICK_MS)
        await run_ready()
        assert meta.state is S.ONGOING  # 1000 ms old, not past its 1000 ms timeout
        env.clock.advance(TICK_MS)
        await run_ready()
        await answered(coord.wait_for_markers())
        assert meta.state is S.COMPLETE_ABORT and meta.producer_epoch == epoch + 1
    finally:
        ticks.cancel()
        await asyncio.gather(ticks, return_exceptions=True)
