"""A coordinator wired to in-memory log, marker writer and producer ids, on a ManualClock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from broker.config import Config
from coordinator.log import MemoryCoordinatorLog
from coordinator.producer_ids import ProducerIdManager
from coordinator.transaction import (
    InMemoryMarkerWriter,
    TransactionConfig,
    TransactionCoordinator,
)
from coordinator.transaction.metadata import TxnTransit
from coordinator.transaction.records import decode_key, decode_value
from protocol.errors import ErrorCode
from storage.clock import ManualClock

TIMEOUT_MS = 60_000

T = TypeVar("T")


def txn_config(**overrides: Any) -> TransactionConfig:
    """The broker's defaults (its config table), with these fields changed."""
    return replace(TransactionConfig.from_broker_config(Config()), **overrides)


class InMemoryTransactionLog(MemoryCoordinatorLog):
    def records(self) -> list[tuple[str, TxnTransit | None]]:
        """Every `__transaction_state` record decoded, in partition order then log order."""
        return [
            (decode_key(r.key), None if r.value is None else decode_value(r.value))
            for p in sorted(self.partitions)
            for r in self.partitions[p]
            if r.key is not None
        ]


@dataclass
class Env:
    clock: ManualClock = field(default_factory=ManualClock)
    log: InMemoryTransactionLog = field(default_factory=lambda: InMemoryTransactionLog(num_partitions=4))
    writer: InMemoryMarkerWriter = field(default_factory=InMemoryMarkerWriter)
    data_dir: Path | None = None
    config: TransactionConfig = field(
        default_factory=lambda: txn_config(num_partitions=4, retry_backoff_ms=0, concurrent_wait_ms=0)
    )

    async def coordinator(self, *, after_unclean_shutdown: bool = False) -> TransactionCoordinator:
        """A coordinator on this env's log; building a second one simulates a restart."""
        pids = ProducerIdManager(self.data_dir, block_size=10)
        coord = TransactionCoordinator(self.log, self.writer, pids, self.clock, self.config)
        await coord.load(after_unclean_shutdown=after_unclean_shutdown)
        return coord


async def init(coord: TransactionCoordinator, tid: str, **kw: int) -> tuple[int, int]:
    res = await coord.init_producer_id(
        tid, kw.pop("timeout", TIMEOUT_MS), kw.pop("producer_id", -1), kw.pop("producer_epoch", -1)
    )
    assert res.error_code == ErrorCode.NONE, res
    return res.producer_id, res.producer_epoch


async def begin(coord: TransactionCoordinator, tid: str, pid: int, epoch: int, *tps: tuple[str, int]) -> None:
    err = await coord.add_partitions(tid, pid, epoch, list(tps) or [("t", 0)])
    assert err == ErrorCode.NONE, err


async def begun_with_markers_held(
    env: Env, tid: str, partition: tuple[str, int]
) -> tuple[TransactionCoordinator, int, int]:
    """A coordinator with `tid` in a transaction on `partition` whose marker writes wait
    for `env.writer.gate` to be set."""
    coord = await env.coordinator()
    pid, epoch = await init(coord, tid)
    await begin(coord, tid, pid, epoch, partition)
    env.writer.gate = asyncio.Event()
    return coord, pid, epoch


async def run_ready(rounds: int = 20) -> None:
    """Let every task that can run without the clock moving run (no wall-clock wait)."""
    for _ in range(rounds):
        await asyncio.sleep(0)


async def answered(awaitable: Awaitable[T], rounds: int = 50) -> T:
    """The result of `awaitable`, which must come without the clock moving."""
    task = asyncio.ensure_future(awaitable)
    for _ in range(rounds):
        if task.done():
            break
        await asyncio.sleep(0)
    if not task.done():
        task.cancel()
        raise AssertionError("not answered without the clock moving")
    return task.result()
