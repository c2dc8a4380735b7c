"""Requests that find their transactional id busy: wait for the work in flight instead of
answering CONCURRENT_TRANSACTIONS at once (`TransactionConfig.concurrent_wait_ms`), and
take their turn behind the requests of the id that arrived before them and are still
being handled."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

from coordinator.transaction.completion import Completions, Phase
from coordinator.transaction.state_manager import TransactionStateManager, release
from protocol.errors import ErrorCode

if TYPE_CHECKING:
    from coordinator.transaction.config import TransactionConfig
    from storage.clock import Clock



class _Answer(Protocol):
    @property
    def error_code(self) -> int: ...


# An error code, or a result carrying one (InitProducerIdResult, EndTxnResult).
R = TypeVar("R", bound=int | _Answer)


class BusyIds:
    def __init__(
        self,
        state: TransactionStateManager,
        completions: Completions,
        clock: Clock,
        config: TransactionConfig,
    ) -> None:
        self.state = state
        self.completions = completions
        self.clock = clock
        self.config = config
        # Per id, the requests being handled through `settle`, in arrival order: each is
        # resolved when its request is answered.
        self._turns: dict[str, list[asyncio.Future[None]]] = {}

    def in_flight(self, transactional_id: str) -> bool:
        """Whether something already under way will change this id's state by itself: a
        transition being appended, or the markers and CompleteX of a prepared transaction."""
        txn = self.state.get(transactional_id)
        if txn is None or self.state.status_error(transactional_id):
            return False
        return txn.pending or (txn.state.is_prepare and self.completions.get(transactional_id) is not None)

    async def settle(
        self,
        transactional_id: str,
        attempt: Callable[[], Awaitable[R]],
        *,
        takes_over: bool = False,
        idle_answers_at_once: bool = False,
    ) -> R:
        """Run `attempt`; while it answers CONCURRENT_TRANSACTIONS because work already in
        flight will settle the id (typically the previous transaction's markers and
        CompleteCommit, written after EndTxn was answered), wait for that work, up to
        `concurrent_wait_ms` of the clock, and run it again. The answer is the one a client
        retry would get after its backoff, only sooner; if the work does not finish in time
        the client gets CONCURRENT_TRANSACTIONS, as from Kafka.

        The first attempt waits (within the same time) for the requests of the id that came
        before it and are still being handled. Kafka handles a connection's requests one at
        a time (its SocketServer mutes the channel until the answer is sent), and a producer
        pipelines: librdkafka's abort_transaction() sends EndTxn(abort) right behind an
        AddPartitionsToTxn still unanswered. While that add waits here for the previous
        commit's markers, the abort must not overtake it: it would find PrepareCommit and
        answer INVALID_TXN_STATE, fatal for the producer, where Kafka's abort finds the
        transaction the add started.

        An attempt that `takes_over` (AddPartitionsToTxn) and finds the previous
        transaction's markers still being written waits for them to be durable without
        having CompleteX written first, then writes CompleteX with its own record: one
        fsync round on its path instead of two. With `idle_answers_at_once`, an attempt
        made when nothing was in flight is answered as it is (InitProducerId: a fence
        answers CONCURRENT_TRANSACTIONS without waiting for the abort it started)."""
        deadline = self.clock.monotonic_ms() + self.config.concurrent_wait_ms
        if not transactional_id:
            return await attempt()
        turns = self._turns.setdefault(transactional_id, [])
        ahead = list(turns)
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        turns.append(turn)
        try:
            if ahead:
                await self._after(ahead, deadline)
            if idle_answers_at_once and not self.in_flight(transactional_id):
                return await attempt()
            return await self._retrying(transactional_id, attempt, deadline, takes_over)
        finally:
            release(turn)
            turns = self._turns.get(transactional_id, [])
            if turn in turns:
                turns.remove(turn)
            if not turns:
                self._turns.pop(transactional_id, None)

    async def _after(self, ahead: list[asyncio.Future[None]], deadline: int) -> None:
        """Until the requests `ahead` are answered, at most until `deadline`."""
        remaining = deadline - self.clock.monotonic_ms()
        if remaining <= 0:
            return
        expired: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        timer = self.clock.call_later(remaining, functools.partial(release, expired))
        try:
            for earlier in ahead:
                if not earlier.done():
                    await asyncio.wait((earlier, expired), return_when=asyncio.FIRST_COMPLETED)
                if expired.done():
                    return
        finally:
            timer.cancel()

    async def _retrying(
        self, transactional_id: str, attempt: Callable[[], Awaitable[R]], deadline: int, takes_over: bool
    ) -> R:
        while True:
            result = await attempt()
            if _error_code(result) != ErrorCode.CONCURRENT_TRANSACTIONS:
                return result
            if not self.in_flight(transactional_id):
                return result
            txn = self.state.get(transactional_id)
            completion = self.completions.get(transactional_id)
            if completion is not None:
                # A CompleteX held back for a merge is written now: someone is waiting for it.
                completion.kick()
            remaining = deadline - self.clock.monotonic_ms()
            if remaining <= 0:
                return result
            if completion is not None and txn is not None and not txn.pending:
                if takes_over and completion.phase is Phase.MARKERS:
                    await completion.wait_held(remaining)
                else:
                    await completion.wait(remaining)
            else:
                await self.state.wait_change(transactional_id, remaining)


def _error_code(result: int | _Answer) -> int:
    return result if isinstance(result, int) else result.error_code
