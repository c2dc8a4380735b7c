"""Requests that find their transactional id busy: wait for the work in flight instead of
answering CONCURRENT_TRANSACTIONS at once (`TransactionConfig.concurrent_wait_ms`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

from coordinator.transaction.completion import Completions, Phase
from coordinator.transaction.state_manager import TransactionStateManager
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

    def in_flight(self, transactional_id: str) -> bool:
        """Whether something already under way will change this id's state by itself: a
        transition being appended, or the markers and CompleteX of a prepared transaction."""
        txn = self.state.get(transactional_id)
        if txn is None or self.state.status_error(transactional_id):
            return False
        return txn.pending or (txn.state.is_prepare and self.completions.get(transactional_id) is not None)

    async def settle(
        self, transactional_id: str, attempt: Callable[[], Awaitable[R]], *, takes_over: bool = False
    ) -> R:
        """Run `attempt`; while it answers CONCURRENT_TRANSACTIONS because work already in
        flight will settle the id (typically the previous transaction's markers and
        CompleteCommit, written after EndTxn was answered), wait for that work, up to
        `concurrent_wait_ms` of the clock, and run it again. The answer is the one a client
        retry would get after its backoff, only sooner; if the work does not finish in time
        the client gets CONCURRENT_TRANSACTIONS, as from Kafka.

        An attempt that `takes_over` (AddPartitionsToTxn) and finds the previous
        transaction's markers still being written waits for them to be durable without
        having CompleteX written first, then writes CompleteX with its own record: one
        fsync round on its path instead of two."""
        deadline = self.clock.monotonic_ms() + self.config.concurrent_wait_ms
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
