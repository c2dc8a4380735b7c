"""A PrepareCommit is written only once everything written before it is durable: the
transaction's Produce was answered before its data was (TransactionCoordinator.
defers_data_durability), and an fsync of the transaction log carries every record in its
file to the disk, so a PrepareCommit written earlier could get there ahead of the data and
commit, after a power loss, records that are gone. The memory log's `earlier_writes_gate`
stands for the fsync round of those earlier writes; time is a ManualClock."""

from __future__ import annotations

import asyncio

import pytest

from coordinator.transaction import TransactionState
from protocol.errors import ErrorCode
from tests.unit.coordinator.transaction.txn_helpers import Env, answered, begin, init, run_ready

S = TransactionState
E = ErrorCode


@pytest.fixture
def env() -> Env:
    return Env()


def _states(env: Env) -> list[S]:
    return [t.state for _, t in env.log.records() if t is not None]


async def test_a_commit_is_written_once_earlier_writes_are_durable(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch)
    gate = env.log.earlier_writes_gate = asyncio.Event()
    ending = asyncio.create_task(coord.end_txn("tx", pid, epoch, True))
    await run_ready()
    # Neither written nor answered while the data's round is still running.
    assert not ending.done()
    assert _states(env)[-1] is S.ONGOING
    gate.set()
    assert await answered(ending) == E.NONE
    assert _states(env)[-2:] == [S.ONGOING, S.PREPARE_COMMIT]


async def test_an_abort_does_not_wait_for_earlier_writes(env: Env) -> None:
    coord = await env.coordinator()
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch)
    env.log.earlier_writes_gate = asyncio.Event()  # never set: an abort commits nothing
    assert await answered(coord.end_txn("tx", pid, epoch, False)) == E.NONE
    assert _states(env)[-2:] == [S.ONGOING, S.PREPARE_ABORT]
