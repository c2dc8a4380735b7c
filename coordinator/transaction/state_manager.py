"""The metadata of every transactional id this coordinator owns and its durable home,
`__transaction_state` (Kafka's `TransactionStateManager`). It serves the ids of the
partitions it owns and has loaded (coordinator/ownership.py): Kafka's
loadTransactionsForTxnTopicPartition and removeTransactionsForTxnTopicPartition are
`load_partition` and `unload_partition`.

Every state change is prepared on the metadata (pending state), appended durably, and
only then applied. The append and the application run as one shielded task: a request
cancelled while its record is being written (the client disconnected) leaves the same
state as one that was answered, and never a pending state with nobody to clear it.
Requests that find an id busy wait here for its state to change (`wait_change`)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

import structlog

from coordinator.log import TRANSACTION_STATE, CoordinatorLog, CoordinatorLogError
from coordinator.ownership import OwnedPartition, Ownership
from coordinator.partitioning import partition_for
from coordinator.transaction.metadata import TransactionMetadata, TxnTransit
from coordinator.transaction.records import decode_key, decode_value, encode_key, encode_value
from coordinator.transaction.state import TransactionState
from protocol.errors import ErrorCode

if TYPE_CHECKING:
    from storage.clock import Clock

log = structlog.get_logger("odradek.txn")

_T = TypeVar("_T")


# What a failed append is answered (coordinator/log.py `client_error`) when a client would
# retry the request: the log unavailable (NOT_ENOUGH_REPLICAS, timed out) for a while.
RETRIED_APPEND_ERRORS = frozenset({ErrorCode.COORDINATOR_NOT_AVAILABLE})


@dataclass(frozen=True)
class RetryWindow:
    """How long, and how often, `write_soon` appends again after a retriable failure."""

    for_ms: int
    backoff_ms: int


class CoordinatorStatus(Enum):
    LOADING = "loading"
    ACTIVE = "active"
    STOPPED = "stopped"


class TransactionStateManager:
    def __init__(self, log_store: CoordinatorLog, clock: Clock, owns_all_partitions: bool = True) -> None:
        self.log_store = log_store
        self.clock = clock
        self.ownership = Ownership(log_store.num_partitions, owns_all_partitions)
        self.stopped = False
        self._txns: dict[str, TransactionMetadata] = {}
        # Requests waiting for an id's state to change (see wait_change).
        self._waiters: dict[str, list[asyncio.Future[None]]] = {}
        # Durable steps in flight -> their partition; shielded from their callers,
        # cancelled only on resignation.
        self._steps: dict[asyncio.Task[Any], int] = {}

    @property
    def status(self) -> CoordinatorStatus:
        """STOPPED once shut down, LOADING while any owned partition loads, else ACTIVE."""
        if self.stopped:
            return CoordinatorStatus.STOPPED
        return CoordinatorStatus.LOADING if self.ownership.any_loading() else CoordinatorStatus.ACTIVE

    # --- the cache ---------------------------------------------------------------------------

    def get(self, transactional_id: str) -> TransactionMetadata | None:
        return self._txns.get(transactional_id)

    def add(self, txn: TransactionMetadata) -> None:
        self._txns[txn.transactional_id] = txn

    def discard(self, txn: TransactionMetadata) -> None:
        """Forget `txn` if it is still the id's metadata (a fresh entry never written)."""
        if self._txns.get(txn.transactional_id) is txn:
            del self._txns[txn.transactional_id]

    def is_current(self, txn: TransactionMetadata) -> bool:
        """Serving, and `txn` is still the metadata of its id (not resigned or reloaded)."""
        tid = txn.transactional_id
        return (
            not self.stopped
            and self._txns.get(tid) is txn
            and self.ownership.active(self.partition_for(tid)) is not None
        )

    def __iter__(self) -> Iterator[TransactionMetadata]:
        return iter(list(self._txns.values()))

    def __len__(self) -> int:
        return len(self._txns)

    def ids(self) -> list[str]:
        return list(self._txns)

    def status_error(self, transactional_id: str | None = None) -> int:
        """What a request for the id is answered before anything else: NOT_COORDINATOR
        when its partition is not this coordinator's, COORDINATOR_LOAD_IN_PROGRESS while
        it loads (Kafka's getTransactionState). Without an id (ListTransactions): load in
        progress while any partition loads."""
        if self.stopped:
            return ErrorCode.NOT_COORDINATOR
        if transactional_id is None:
            return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS if self.ownership.any_loading() else ErrorCode.NONE
        error = self.ownership.serving_error(self.partition_for(transactional_id))
        return ErrorCode.NONE if error is None else error

    def partition_for(self, transactional_id: str) -> int:
        return _placement(transactional_id, self.log_store.num_partitions)[0]

    def epoch_of(self, transactional_id: str) -> int:
        """The coordinator epoch of the id: the leader epoch its partition was elected at."""
        owned = self.ownership.get(self.partition_for(transactional_id))
        return 0 if owned is None else max(owned.epoch, 0)

    # --- load and resign ---------------------------------------------------------------------

    async def load_partition(self, owned: OwnedPartition) -> list[TransactionMetadata] | None:
        """Replay one partition of `__transaction_state` (last record per id wins,
        tombstones delete) and serve its ids. Returns the transactions the log left in
        PrepareCommit/PrepareAbort, or None when the partition was resigned meanwhile."""
        loaded: dict[str, TransactionMetadata] = {}
        for record in await self.log_store.replay(owned.partition):
            if record.key is None:
                continue  # a marker
            try:
                tid = decode_key(record.key)
            except ValueError:
                continue  # another record type; Kafka skips unknown keys too
            if record.value is None:
                loaded.pop(tid, None)
            else:
                loaded[tid] = TransactionMetadata.from_transit(tid, decode_value(record.value))
        if not self.ownership.loaded(owned):
            return None
        self._txns.update(loaded)
        for tid in loaded:
            self.notify(tid)
        return [t for t in loaded.values() if t.state.is_prepare]

    def unload_partition(self, partition: int) -> list[asyncio.Task[Any]]:
        """Stop serving the partition's ids at once: their durable steps in flight are
        cancelled (the log is the truth for whoever loads it next; the tasks returned end
        soon) and every waiter on them looks again, to be told NOT_COORDINATOR."""
        steps = [task for task, p in self._steps.items() if p == partition]
        for step in steps:
            step.cancel()
        for tid in [t for t in self._txns if self.partition_for(t) == partition]:
            del self._txns[tid]
        for tid in [t for t in self._waiters if self.partition_for(t) == partition]:
            self.notify(tid)
        return steps

    async def resign(self) -> None:
        """Stop serving every partition: the durable steps in flight are dropped (the log is
        the truth for whoever loads it next) and every waiter looks again, to be told
        NOT_COORDINATOR."""
        self.stopped = True
        steps = list(self._steps)
        for step in steps:
            step.cancel()
        await asyncio.gather(*steps, return_exceptions=True)
        self._txns.clear()
        for tid in list(self._waiters):
            self.notify(tid)

    # --- durable steps -----------------------------------------------------------------------

    async def durably(self, step: Coroutine[Any, Any, _T], partition: int) -> _T:
        """Run `step` to its end even if the caller is cancelled: what it appends is applied,
        and what it prepared is released, whether or not anyone waits for the answer."""
        # The caller waits on a future of its own that the step resolves as it ends: a
        # cancelled caller leaves the step running, as a shield would, and a caller that
        # stays resumes a turn of the loop sooner than through one.
        answer: asyncio.Future[_T] = asyncio.get_running_loop().create_future()
        self._start(_answering(step, answer), partition)
        return await answer

    def _start(self, step: Coroutine[Any, Any, _T], partition: int) -> asyncio.Task[_T]:
        task = asyncio.get_running_loop().create_task(step)
        self._steps[task] = partition
        task.add_done_callback(self._step_done)
        return task

    def _step_done(self, task: asyncio.Task[Any]) -> None:
        self._steps.pop(task, None)
        if not task.cancelled() and (exc := task.exception()) is not None:
            # Read here so that a step whose caller left is not reported as never retrieved.
            log.error("transaction state step failed", error=repr(exc))

    async def write(
        self,
        txn: TransactionMetadata,
        *transits: TxnTransit,
        then: Callable[[int], None] | None = None,
    ) -> int:
        """Append prepared transitions (one record each, one batch) and apply them once they
        are durable; `then(error)` runs right after, in the same shielded step."""
        try:
            return await self.durably(self._write(txn, transits, then), self.partition_for(txn.transactional_id))
        except ResignedError:
            return ErrorCode.NOT_COORDINATOR

    def write_soon(
        self,
        txn: TransactionMetadata,
        *transits: TxnTransit,
        then: Callable[[int], None] | None = None,
        retry: RetryWindow | None = None,
    ) -> None:
        """`write` without waiting for it: the append and its fsync round run while the
        caller answers, and the transitions are applied once durable as with `write`. Until
        then the id is pending, so whoever must see the result waits for it (`settle`).

        The caller was already told the write succeeded, so an append that fails for a
        while only (the log unavailable: what a client would retry) is made again within
        `retry`, the id staying pending meanwhile, as the client's own retries would have
        made it in Kafka, where the answer waits for the append."""
        self._start(self._write(txn, transits, then, retry), self.partition_for(txn.transactional_id))

    async def settle(self, transactional_id: str, timeout_ms: int) -> bool:
        """Until no transition of the id is being appended, at most `timeout_ms` of the
        clock's time; False if one still is."""
        deadline = self.clock.monotonic_ms() + timeout_ms
        while (txn := self._txns.get(transactional_id)) is not None and txn.pending:
            remaining = deadline - self.clock.monotonic_ms()
            if remaining <= 0 or self.status_error(transactional_id):
                return False
            await self.wait_change(transactional_id, remaining)
        return True

    async def _write(
        self,
        txn: TransactionMetadata,
        transits: tuple[TxnTransit, ...],
        then: Callable[[int], None] | None,
        retry: RetryWindow | None = None,
    ) -> int:
        try:
            err = await self._append_and_apply(txn, transits, retry)
            if then is not None:
                then(err)
            return err
        finally:
            self.notify(txn.transactional_id)

    async def _append_and_apply(
        self, txn: TransactionMetadata, transits: tuple[TxnTransit, ...], retry: RetryWindow | None = None
    ) -> int:
        tid = txn.transactional_id
        partition, key = _placement(tid, self.log_store.num_partitions)
        records: list[tuple[bytes, bytes | None]] = [
            (key, None if t.state is TransactionState.DEAD else encode_value(t)) for t in transits
        ]
        # The transaction's data was answered before it was durable (the Produce does not
        # wait, TransactionCoordinator.defers_data_durability): a PrepareCommit on the disk
        # ahead of it would commit records a power loss took. (In a cluster the data is
        # durable before its Produce is answered, on whichever broker: this gate then only
        # covers this broker's own engine, and costs a round at most.)
        commits = any(t.state is TransactionState.PREPARE_COMMIT for t in transits)
        give_up_at = None if retry is None else self.clock.monotonic_ms() + retry.for_ms
        while True:
            try:
                await self._append(partition, records, after_earlier_writes=commits)
                break
            except CoordinatorLogError as exc:
                err = exc.client_error(TRANSACTION_STATE)
                if (
                    retry is not None
                    and give_up_at is not None
                    and err in RETRIED_APPEND_ERRORS
                    and self.is_current(txn)
                    and self.clock.monotonic_ms() < give_up_at
                ):
                    log.info("transaction log append failed, retrying", transactional_id=tid,
                             error=exc.error.name)
                    await self.clock.sleep(retry.backoff_ms)
                    continue
                txn.abort_transition()
                log.warning("transaction log append failed", transactional_id=tid, error=exc.error.name)
                return err
            except BaseException:
                txn.abort_transition()
                raise
        if not self.is_current(txn):
            # Resigned (or reloaded) while the append was in flight.
            txn.abort_transition()
            return ErrorCode.NOT_COORDINATOR
        txn.complete_transitions(list(transits))
        return ErrorCode.NONE

    async def write_tombstones(
        self, partition: int, entries: list[tuple[TransactionMetadata, TxnTransit]]
    ) -> list[str]:
        """Append the Dead transitions of expired ids of one partition as tombstones and drop
        those ids; returns the ids dropped."""
        try:
            return await self.durably(self._write_tombstones(partition, entries), partition)
        except ResignedError:
            return []

    async def _write_tombstones(
        self, partition: int, entries: list[tuple[TransactionMetadata, TxnTransit]]
    ) -> list[str]:
        records: list[tuple[bytes, bytes | None]] = [
            (encode_key(t.transactional_id), None) for t, _ in entries
        ]
        try:
            await self._append(partition, records)
        except BaseException as exc:
            for txn, _ in entries:
                txn.abort_transition()
                self.notify(txn.transactional_id)
            if not isinstance(exc, Exception):
                raise
            log.warning("expiring transactional ids failed", partition=partition, error=repr(exc))
            return []
        expired: list[str] = []
        for txn, transit in entries:
            if self.is_current(txn):
                txn.complete_transition(transit)
                del self._txns[txn.transactional_id]
                expired.append(txn.transactional_id)
            else:
                txn.abort_transition()
            self.notify(txn.transactional_id)
        return expired

    async def _append(
        self, partition: int, records: list[tuple[bytes, bytes | None]], *, after_earlier_writes: bool = False
    ) -> None:
        """The one place records are appended to `__transaction_state`."""
        await self.log_store.append(partition, records, after_earlier_writes=after_earlier_writes)

    # --- waiting for a change ----------------------------------------------------------------

    async def wait_change(self, transactional_id: str, timeout_ms: int) -> None:
        """Until the id's state changes (or a step on it ends), at most `timeout_ms` of the
        clock's time."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(transactional_id, []).append(waiter)
        timer = self.clock.call_later(timeout_ms, functools.partial(release, waiter))
        try:
            await waiter
        finally:
            timer.cancel()
            waiters = self._waiters.get(transactional_id)
            if waiters is not None and waiter in waiters:
                waiters.remove(waiter)
                if not waiters:
                    del self._waiters[transactional_id]

    def notify(self, transactional_id: str) -> None:
        """The id's state changed (or a step on it ended): waiting requests look again."""
        for waiter in self._waiters.pop(transactional_id, ()):
            release(waiter)


class ResignedError(Exception):
    """The step was cancelled because its partition was resigned: its caller is answered
    NOT_COORDINATOR, as Kafka fails the appends pending at unload."""


async def _answering(step: Coroutine[Any, Any, _T], answer: asyncio.Future[_T]) -> _T:
    """Run `step`, handing its outcome to `answer` (unless its waiter is gone)."""
    try:
        result = await step
    except asyncio.CancelledError:
        if not answer.done():
            answer.set_exception(ResignedError())
        raise
    except BaseException as exc:
        if not answer.done():
            answer.set_exception(exc)
        raise
    if not answer.done():
        answer.set_result(result)
    return result


def release(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


@functools.lru_cache(maxsize=16_384)
def _placement(transactional_id: str, num_partitions: int) -> tuple[int, bytes]:
    """The `__transaction_state` partition and record key of an id: both are computed for
    every transition of a live producer, so they are kept for the busiest ids."""
    return partition_for(transactional_id, num_partitions), encode_key(transactional_id)
