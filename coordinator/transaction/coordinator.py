"""The transaction coordinator (KIP-98, transaction version 1).

Every state change goes through `TransactionMetadata.prepare_*` (pending state), a durable
append to `__transaction_state`, and only then `complete_transition`. The event loop is
single-threaded, so a check and the prepare that follows it are atomic as long as no
`await` separates them; the pending state covers the append.

Time never comes from the system: timeouts and expiry are driven by `tick()` with the
injected clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

import structlog

from coordinator.log import TRANSACTION_STATE, CoordinatorLog, CoordinatorLogError
from coordinator.partitioning import partition_for
from coordinator.producer_ids import ProducerIdManager
from coordinator.transaction.markers import MarkerOutcome, MarkerWriter, classify_marker_error
from coordinator.transaction.metadata import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    IllegalTransitionError,
    TopicPartition,
    TransactionMetadata,
    TxnError,
    TxnTransit,
    is_epoch_exhausted,
)
from coordinator.transaction.records import decode_key, decode_value, encode_key, encode_value
from coordinator.transaction.state import TransactionState
from protocol.errors import ErrorCode

if TYPE_CHECKING:
    from broker.config import Config
    from storage.clock import Clock

log = structlog.get_logger("odradek.txn")

S = TransactionState


@dataclass
class TransactionConfig:
    max_timeout_ms: int = 900_000
    transactional_id_expiration_ms: int = 604_800_000
    abort_timed_out_interval_ms: int = 10_000
    remove_expired_interval_ms: int = 3_600_000
    num_partitions: int = 50
    # Between rounds of marker writes (or CompleteX appends) that failed retriably.
    retry_backoff_ms: int = 100
    # A request that finds its transactional id busy (a transition being appended, or the
    # markers and CompleteX of the previous transaction in flight) waits up to this long
    # for it to finish before answering CONCURRENT_TRANSACTIONS; 0 answers at once.
    concurrent_wait_ms: int = 500
    # Once a transaction's markers are durable, its CompleteX is held back this long for
    # the producer's next AddPartitionsToTxn, which then writes CompleteX and Ongoing in one
    # batch with one fsync; any other request for the id has it written at once.
    complete_merge_window_ms: int = 20

    @classmethod
    def from_broker_config(cls, config: Config) -> TransactionConfig:
        return cls(
            max_timeout_ms=int(config.get("transaction.max.timeout.ms")),
            transactional_id_expiration_ms=int(config.get("transactional.id.expiration.ms")),
            abort_timed_out_interval_ms=int(config.get("transaction.abort.timed.out.transaction.cleanup.interval.ms")),
            remove_expired_interval_ms=int(config.get("transaction.remove.expired.transaction.cleanup.interval.ms")),
            num_partitions=int(config.get("transaction.state.log.num.partitions")),
        )


class CoordinatorStatus(Enum):
    LOADING = "loading"
    ACTIVE = "active"
    STOPPED = "stopped"


@dataclass(frozen=True, slots=True)
class InitProducerIdResult:
    error_code: int
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH


@dataclass(frozen=True, slots=True)
class TransactionDescription:
    transactional_id: str
    state: TransactionState
    timeout_ms: int
    start_timestamp: int
    producer_id: int
    producer_epoch: int
    partitions: frozenset[TopicPartition]


@dataclass
class ListTransactionsResult:
    error_code: int = ErrorCode.NONE
    unknown_state_filters: list[str] = field(default_factory=list)
    transactions: list[TransactionDescription] = field(default_factory=list)


class TransactionCoordinator:
    def __init__(
        self,
        log_store: CoordinatorLog,
        marker_writer: MarkerWriter,
        producer_ids: ProducerIdManager,
        clock: Clock,
        config: TransactionConfig | None = None,
        coordinator_epoch: int = 0,
    ) -> None:
        self.log_store = log_store
        self.marker_writer = marker_writer
        self.producer_ids = producer_ids
        self.clock = clock
        self.config = config or TransactionConfig(num_partitions=log_store.num_partitions)
        # Stamped on every marker; the leader epoch of the __transaction_state partition.
        self.coordinator_epoch = coordinator_epoch
        self.status = CoordinatorStatus.LOADING
        self._txns: dict[str, TransactionMetadata] = {}
        self._marker_tasks: dict[str, asyncio.Task[None]] = {}
        # Requests waiting for a transactional id to settle (see _settle).
        self._waiters: dict[str, list[asyncio.Future[None]]] = {}
        # Transactions whose markers are durable and whose CompleteX is not written yet, and
        # the wake-ups of their marker tasks (see _complete_transaction).
        self._completing: dict[str, TransactionMetadata] = {}
        self._kicks: dict[str, asyncio.Future[None]] = {}
        self._next_abort_check = 0
        self._next_expire_check = 0

    # --- lifecycle ---------------------------------------------------------------------------

    def partition_for(self, transactional_id: str) -> int:
        return _placement(transactional_id, self.log_store.num_partitions)[0]

    async def load(self) -> None:
        """Replay `__transaction_state` (last record per id wins, tombstones delete), start
        serving, and finish every transaction the log left in PrepareCommit/PrepareAbort."""
        self.status = CoordinatorStatus.LOADING
        loaded: dict[str, TransactionMetadata] = {}
        for partition in range(self.log_store.num_partitions):
            for record in await self.log_store.replay(partition):
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
        self._txns = loaded
        now = self.clock.now_ms()
        self._next_abort_check = now + self.config.abort_timed_out_interval_ms
        self._next_expire_check = now + self.config.remove_expired_interval_ms
        self.status = CoordinatorStatus.ACTIVE
        resumed = [t for t in loaded.values() if t.state.is_prepare]
        for txn in resumed:
            self._start_markers(txn)
        log.info("transaction state loaded", transactions=len(loaded), completing=len(resumed))

    async def shutdown(self) -> None:
        """Resign: drop the cache and the markers in flight; callers get NOT_COORDINATOR."""
        self.status = CoordinatorStatus.STOPPED
        tasks = list(self._marker_tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._marker_tasks.clear()
        self._txns.clear()
        self._notify_all()

    async def wait_for_markers(self) -> None:
        """Wait until no transaction has markers in flight (tests and clean shutdown)."""
        while self._marker_tasks:
            for tid in list(self._kicks):
                self._kick(tid)
            await asyncio.gather(*list(self._marker_tasks.values()), return_exceptions=True)

    def _status_error(self) -> int:
        if self.status is CoordinatorStatus.LOADING:
            return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        if self.status is CoordinatorStatus.STOPPED:
            return ErrorCode.NOT_COORDINATOR
        return ErrorCode.NONE

    # --- persistence ---------------------------------------------------------------------------

    async def _append(self, txn: TransactionMetadata, *transits: TxnTransit) -> int:
        """Write prepared transitions (one record each, one batch) and apply them only once
        they are durable."""
        try:
            return await self._append_transitions(txn, transits)
        finally:
            self._notify(txn.transactional_id)

    async def _append_transitions(self, txn: TransactionMetadata, transits: tuple[TxnTransit, ...]) -> int:
        tid = txn.transactional_id
        partition, key = _placement(tid, self.log_store.num_partitions)
        records: list[tuple[bytes, bytes | None]] = [
            (key, None if t.state is S.DEAD else encode_value(t)) for t in transits
        ]
        try:
            await self.log_store.append(partition, records)
        except CoordinatorLogError as exc:
            txn.abort_transition()
            log.warning("transaction log append failed", transactional_id=tid, error=exc.error.name)
            return exc.client_error(TRANSACTION_STATE)
        except BaseException:
            txn.abort_transition()
            raise
        if self.status is not CoordinatorStatus.ACTIVE or self._txns.get(tid) is not txn:
            # Resigned (or reloaded) while the append was in flight.
            txn.abort_transition()
            return ErrorCode.NOT_COORDINATOR
        txn.complete_transitions(list(transits))
        return ErrorCode.NONE

    # --- waiting for a busy transactional id -------------------------------------------------

    def _in_flight(self, transactional_id: str) -> bool:
        """Whether something already under way will change this id's state by itself: a
        transition being appended, or the markers and CompleteX of a prepared transaction."""
        txn = self._txns.get(transactional_id)
        if txn is None or self.status is not CoordinatorStatus.ACTIVE:
            return False
        return txn.pending or (txn.state.is_prepare and transactional_id in self._marker_tasks)

    async def _settle(self, transactional_id: str, attempt: Callable[[], Awaitable[_R]]) -> _R:
        """Run `attempt`; while it answers CONCURRENT_TRANSACTIONS because work already in
        flight will settle the id (typically the previous transaction's markers and
        CompleteCommit, written after EndTxn was answered), wait for that work, up to
        `concurrent_wait_ms`, and run it again. The answer is the one a client retry would
        get after its backoff, only sooner; if the work does not finish in time the client
        gets CONCURRENT_TRANSACTIONS, as from Kafka."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.concurrent_wait_ms / 1000
        while True:
            result = await attempt()
            if _error_code(result) != ErrorCode.CONCURRENT_TRANSACTIONS:
                return result
            if not self._in_flight(transactional_id):
                return result
            # A CompleteX held back for a merge is written now: someone is waiting for it.
            self._kick(transactional_id)
            remaining = deadline - loop.time()
            if remaining <= 0:
                return result
            await self._wait_change(transactional_id, remaining)

    async def _wait_change(self, transactional_id: str, timeout: float) -> None:
        """Until the id's state changes (or work on it ends), at most `timeout` seconds."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiters.setdefault(transactional_id, []).append(waiter)
        timer = loop.call_later(timeout, _release, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            waiters = self._waiters.get(transactional_id)
            if waiters is not None and waiter in waiters:
                waiters.remove(waiter)
                if not waiters:
                    del self._waiters[transactional_id]

    def _kick(self, transactional_id: str) -> None:
        kick = self._kicks.pop(transactional_id, None)
        if kick is not None:
            _release(kick)

    def _notify(self, transactional_id: str) -> None:
        """The id's state changed (or work on it ended): waiting requests look again."""
        waiters = self._waiters.pop(transactional_id, None)
        if waiters:
            for waiter in waiters:
                _release(waiter)

    def _notify_all(self) -> None:
        for tid in list(self._waiters):
            self._notify(tid)

    # --- InitProducerId ------------------------------------------------------------------------

    async def init_producer_id(
        self,
        transactional_id: str | None,
        transaction_timeout_ms: int,
        expected_producer_id: int = NO_PRODUCER_ID,
        expected_producer_epoch: int = NO_PRODUCER_EPOCH,
    ) -> InitProducerIdResult:
        if not transactional_id or not self._in_flight(transactional_id):
            # Fencing an open transaction answers CONCURRENT_TRANSACTIONS as Kafka does, without
            # waiting for the abort it started; a request that finds work already in flight waits.
            return await self._init_producer_id(
                transactional_id, transaction_timeout_ms, expected_producer_id, expected_producer_epoch
            )
        return await self._settle(
            transactional_id,
            lambda: self._init_producer_id(
                transactional_id, transaction_timeout_ms, expected_producer_id, expected_producer_epoch
            ),
        )

    async def _init_producer_id(
        self,
        transactional_id: str | None,
        transaction_timeout_ms: int,
        expected_producer_id: int,
        expected_producer_epoch: int,
    ) -> InitProducerIdResult:
        if (expected_producer_id == NO_PRODUCER_ID) != (expected_producer_epoch == NO_PRODUCER_EPOCH):
            return InitProducerIdResult(ErrorCode.INVALID_REQUEST)
        if transactional_id is None:
            # Idempotent producer: any broker answers with a fresh id.
            return InitProducerIdResult(ErrorCode.NONE, await self.producer_ids.generate(), 0)
        if transactional_id == "":
            return InitProducerIdResult(ErrorCode.INVALID_REQUEST)
        if not 0 < transaction_timeout_ms <= self.config.max_timeout_ms:
            return InitProducerIdResult(ErrorCode.INVALID_TRANSACTION_TIMEOUT)
        if err := self._status_error():
            return InitProducerIdResult(err)
        expected = (
            None
            if expected_producer_id == NO_PRODUCER_ID
            else (expected_producer_id, expected_producer_epoch)
        )

        created: TransactionMetadata | None = None
        txn = self._txns.get(transactional_id)
        if txn is None:
            new_pid = await self.producer_ids.generate()
            if err := self._status_error():
                return InitProducerIdResult(err)
            txn = self._txns.get(transactional_id)
            if txn is None:
                now = self.clock.now_ms()
                txn = created = TransactionMetadata(
                    transactional_id, new_pid, timeout_ms=transaction_timeout_ms, last_update_timestamp=now
                )
                self._txns[transactional_id] = txn

        rotation_pid: int | None = None
        while True:
            if txn.pending:
                return InitProducerIdResult(ErrorCode.CONCURRENT_TRANSACTIONS)
            if expected is not None and not _is_valid_producer_id(txn, expected):
                return InitProducerIdResult(ErrorCode.PRODUCER_FENCED)
            if txn.state.is_prepare:
                return InitProducerIdResult(ErrorCode.CONCURRENT_TRANSACTIONS)
            if txn.state is S.ONGOING:
                return await self._fence_open_transaction(txn)
            if txn.state not in (S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT):
                log.error(
                    "unexpected state at InitProducerId", transactional_id=transactional_id, state=txn.state
                )
                return InitProducerIdResult(ErrorCode.UNKNOWN_SERVER_ERROR)
            rotate = is_epoch_exhausted(txn.producer_epoch) and (
                expected is None or expected[1] == txn.producer_epoch
            )
            if rotate and rotation_pid is None:
                # Allocating may wait on disk; everything above is checked again afterwards.
                rotation_pid = await self.producer_ids.generate()
                if self._txns.get(transactional_id) is not txn:
                    return InitProducerIdResult(ErrorCode.CONCURRENT_TRANSACTIONS)
                continue
            break

        now = self.clock.now_ms()
        try:
            if rotate:
                assert rotation_pid is not None
                transit = txn.prepare_producer_id_rotation(
                    rotation_pid, transaction_timeout_ms, now, record_last_epoch=expected is not None
                )
            else:
                transit = txn.prepare_increment_epoch(
                    None if expected is None else expected[1], transaction_timeout_ms, now
                )
        except TxnError as exc:
            return InitProducerIdResult(exc.error_code)
        err = await self._append(txn, transit)
        if err:
            if created is not None and not created.persisted and self._txns.get(transactional_id) is created:
                del self._txns[transactional_id]
            return InitProducerIdResult(err)
        return InitProducerIdResult(ErrorCode.NONE, txn.producer_id, txn.producer_epoch)

    async def _fence_open_transaction(self, txn: TransactionMetadata) -> InitProducerIdResult:
        """A new instance found its predecessor's transaction open: abort it at a bumped
        epoch and let the new instance retry (CONCURRENT_TRANSACTIONS) until it completes."""
        err = await self._abort_with_epoch_fence(txn)
        return InitProducerIdResult(err or ErrorCode.CONCURRENT_TRANSACTIONS)

    async def _abort_with_epoch_fence(self, txn: TransactionMetadata) -> int:
        transit = txn.prepare_fence_and_abort(self.clock.now_ms())
        err = await self._append(txn, transit)
        if err == ErrorCode.NONE:
            self._start_markers(txn)
        return err

    # --- AddPartitionsToTxn / AddOffsetsToTxn ----------------------------------------------------

    def _check_producer(
        self, transactional_id: str, producer_id: int, producer_epoch: int
    ) -> TransactionMetadata:
        """The checks AddPartitions and EndTxn share, in Kafka's order."""
        txn = self._txns.get(transactional_id)
        if txn is None:
            raise TxnError(ErrorCode.INVALID_PRODUCER_ID_MAPPING)
        if txn.pending:
            raise TxnError(ErrorCode.CONCURRENT_TRANSACTIONS)
        if txn.producer_id != producer_id:
            raise TxnError(ErrorCode.INVALID_PRODUCER_ID_MAPPING)
        if txn.producer_epoch != producer_epoch:
            raise TxnError(ErrorCode.PRODUCER_FENCED)
        return txn

    async def add_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
    ) -> int:
        wanted = set(partitions)
        return await self._settle(
            transactional_id,
            lambda: self._add_partitions(transactional_id, producer_id, producer_epoch, wanted),
        )

    async def _add_partitions(
        self, transactional_id: str, producer_id: int, producer_epoch: int, wanted: set[TopicPartition]
    ) -> int:
        if not transactional_id:
            return ErrorCode.INVALID_REQUEST
        if err := self._status_error():
            return err
        try:
            txn = self._check_producer(transactional_id, producer_id, producer_epoch)
        except TxnError as exc:
            return exc.error_code
        if txn.state.is_prepare:
            if self._completing.get(transactional_id) is txn:
                return await self._complete_and_add(txn, wanted)
            return ErrorCode.CONCURRENT_TRANSACTIONS
        if txn.state is S.ONGOING and wanted <= txn.partitions:
            return ErrorCode.NONE
        try:
            transit = txn.prepare_add_partitions(wanted, self.clock.now_ms())
        except IllegalTransitionError:
            log.exception("AddPartitions in an unexpected state", transactional_id=transactional_id)
            return ErrorCode.UNKNOWN_SERVER_ERROR
        return await self._append(txn, transit)

    async def _complete_and_add(self, txn: TransactionMetadata, wanted: set[TopicPartition]) -> int:
        """The previous transaction's markers are durable but its CompleteX is not written
        yet: write CompleteX and the new transaction's Ongoing as one batch (one fsync), as
        if the completion had been logged just before this request arrived."""
        tid = txn.transactional_id
        try:
            complete, ongoing = txn.prepare_complete_and_add_partitions(wanted, self.clock.now_ms())
        except IllegalTransitionError:
            log.exception("AddPartitions after markers in an unexpected state", transactional_id=tid)
            return ErrorCode.UNKNOWN_SERVER_ERROR
        # This request takes the completion over: the marker task, waiting in its window,
        # is released and ends without writing anything.
        self._completing.pop(tid, None)
        self._marker_tasks.pop(tid, None)
        self._kick(tid)
        err = await self._append(txn, complete, ongoing)
        if err != ErrorCode.NONE and self._txns.get(tid) is txn and txn.state.is_prepare:
            # Not written: CompleteX is still owed, and the markers are already durable.
            self._start_markers(txn, markers_durable=True)
        return err

    def verify_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
    ) -> dict[TopicPartition, int]:
        """KIP-890 verification (AddPartitionsToTxn v4+ VerifyOnly): is each partition part
        of the producer's ongoing transaction? No I/O, so the produce path may call it
        in-process. A request-level problem is answered for every partition."""
        wanted = list(partitions)
        err = ErrorCode.INVALID_REQUEST if not transactional_id else self._status_error()
        if not err:
            txn = self._txns.get(transactional_id)
            if txn is None or txn.producer_id != producer_id:
                err = ErrorCode.INVALID_PRODUCER_ID_MAPPING
            elif txn.producer_epoch != producer_epoch:
                err = ErrorCode.PRODUCER_FENCED
            elif txn.state.is_prepare:
                err = ErrorCode.CONCURRENT_TRANSACTIONS
            else:
                # Pending changes are not consulted: partitions join only once persisted.
                return {
                    tp: ErrorCode.NONE
                    if txn.state is S.ONGOING and tp in txn.partitions
                    else ErrorCode.TRANSACTION_ABORTABLE
                    for tp in wanted
                }
        return dict.fromkeys(wanted, err)

    # --- EndTxn ---------------------------------------------------------------------------------

    async def end_txn(
        self, transactional_id: str, producer_id: int, producer_epoch: int, commit: bool
    ) -> int:
        return await self._settle(
            transactional_id, lambda: self._end_txn(transactional_id, producer_id, producer_epoch, commit)
        )

    async def _end_txn(
        self, transactional_id: str, producer_id: int, producer_epoch: int, commit: bool
    ) -> int:
        if not transactional_id:
            return ErrorCode.INVALID_REQUEST
        if err := self._status_error():
            return err
        txn = self._txns.get(transactional_id)
        # EndTxn checks the producer id before the pending state (transactions.md §4.4).
        if txn is None or txn.producer_id != producer_id:
            return ErrorCode.INVALID_PRODUCER_ID_MAPPING
        if txn.producer_epoch != producer_epoch:
            return ErrorCode.PRODUCER_FENCED
        if txn.pending:
            return ErrorCode.CONCURRENT_TRANSACTIONS
        state = txn.state
        if state is S.ONGOING:
            transit = txn.prepare_end(commit, self.clock.now_ms())
            err = await self._append(txn, transit)
            if err == ErrorCode.NONE:
                # Answered now; markers follow asynchronously.
                self._start_markers(txn)
            return err
        if state is S.PREPARE_COMMIT:
            return ErrorCode.CONCURRENT_TRANSACTIONS if commit else ErrorCode.INVALID_TXN_STATE
        if state is S.PREPARE_ABORT:
            return ErrorCode.INVALID_TXN_STATE if commit else ErrorCode.CONCURRENT_TRANSACTIONS
        if state is S.COMPLETE_COMMIT:
            return ErrorCode.NONE if commit else ErrorCode.INVALID_TXN_STATE
        if state is S.COMPLETE_ABORT:
            return ErrorCode.INVALID_TXN_STATE if commit else ErrorCode.NONE
        return ErrorCode.INVALID_TXN_STATE

    # --- markers ---------------------------------------------------------------------------------

    def _start_markers(self, txn: TransactionMetadata, *, markers_durable: bool = False) -> None:
        tid = txn.transactional_id
        if tid in self._marker_tasks:
            return
        task = asyncio.get_running_loop().create_task(
            self._complete_transaction(txn, markers_durable), name=f"txn-markers-{tid}"
        )
        self._marker_tasks[tid] = task

        def _done(t: asyncio.Task[None]) -> None:
            if self._marker_tasks.get(tid) is t:
                del self._marker_tasks[tid]
                self._completing.pop(tid, None)
                self._kicks.pop(tid, None)
            self._notify(tid)

        task.add_done_callback(_done)

    async def _complete_transaction(self, txn: TransactionMetadata, markers_durable: bool = False) -> None:
        """Write the markers of a PrepareCommit/PrepareAbort transaction to all its partitions,
        retrying the retriable failures, then log CompleteCommit/CompleteAbort.

        The metadata object outlives the transaction (it is the transactional id's), so the
        task checks that it is still the one registered for the id: a request that took the
        completion over (_complete_and_add) unregisters it."""
        tid = txn.transactional_id
        me = asyncio.current_task()
        committed = txn.state is S.PREPARE_COMMIT
        pid, epoch = txn.producer_id, txn.producer_epoch
        remaining = [] if markers_durable else sorted(txn.partitions)
        backoff = self.config.retry_backoff_ms / 1000
        while remaining:
            if self.status is not CoordinatorStatus.ACTIVE or self._txns.get(tid) is not txn:
                return
            try:
                results = await self.marker_writer.write_markers(
                    pid, epoch, self.coordinator_epoch, committed, list(remaining)
                )
            except Exception:
                log.exception("writing transaction markers failed", transactional_id=tid)
                results = {}
            retry: list[TopicPartition] = []
            for tp in remaining:
                error = results.get(tp, ErrorCode.UNKNOWN_SERVER_ERROR)
                outcome = classify_marker_error(error)
                if outcome is MarkerOutcome.OBSOLETE:
                    # As Kafka: a newer producer epoch or coordinator owns this transaction now.
                    log.warning(
                        "transaction markers obsolete", transactional_id=tid, partition=tp, error=error
                    )
                    return
                if outcome is MarkerOutcome.RETRY:
                    retry.append(tp)
            remaining = retry
            if remaining:
                await asyncio.sleep(backoff)
        if self.status is not CoordinatorStatus.ACTIVE or self._txns.get(tid) is not txn:
            return
        # The markers are durable. Hold CompleteX back briefly: the producer's next
        # AddPartitionsToTxn usually arrives within a millisecond or two and then writes it
        # together with its own Ongoing record (_complete_and_add). Anyone waiting on the id
        # kicks it out at once.
        self._completing[tid] = txn
        window = self.config.complete_merge_window_ms / 1000
        if window > 0 and not markers_durable and not self._waiters.get(tid):
            kick = self._kicks[tid] = asyncio.get_running_loop().create_future()
            timer = asyncio.get_running_loop().call_later(window, _release, kick)
            try:
                await kick
            finally:
                timer.cancel()
                if self._kicks.get(tid) is kick:
                    del self._kicks[tid]
        while (
            self.status is CoordinatorStatus.ACTIVE
            and self._txns.get(tid) is txn
            and self._marker_tasks.get(tid) is me
            and txn.state.is_prepare
        ):
            if txn.pending:
                await self._wait_change(tid, max(backoff, 0.05))
                continue
            err = await self._append(txn, txn.prepare_complete(self.clock.now_ms()))
            if err in (ErrorCode.NONE, ErrorCode.NOT_COORDINATOR):
                return
            await asyncio.sleep(backoff)

    # --- time -------------------------------------------------------------------------------------

    async def tick(self) -> None:
        """Run the periodic jobs that are due (the broker calls this every second or so)."""
        if self.status is not CoordinatorStatus.ACTIVE:
            return
        now = self.clock.now_ms()
        if now >= self._next_abort_check:
            self._next_abort_check = now + self.config.abort_timed_out_interval_ms
            await self.abort_timed_out_transactions()
        if now >= self._next_expire_check:
            self._next_expire_check = now + self.config.remove_expired_interval_ms
            await self.expire_transactional_ids()

    async def abort_timed_out_transactions(self) -> list[str]:
        """Abort every Ongoing transaction older than its timeout, bumping the epoch so the
        producer that left it open is fenced. Returns the ids aborted."""
        now = self.clock.now_ms()
        expired = [
            t
            for t in self._txns.values()
            if t.state is S.ONGOING and not t.pending and t.start_timestamp + t.timeout_ms < now
        ]
        aborted: list[str] = []
        for txn in expired:
            if self._txns.get(txn.transactional_id) is not txn or txn.pending or txn.state is not S.ONGOING:
                continue
            log.info("aborting timed-out transaction", transactional_id=txn.transactional_id)
            if await self._abort_with_epoch_fence(txn) == ErrorCode.NONE:
                aborted.append(txn.transactional_id)
        return aborted

    async def expire_transactional_ids(self) -> list[str]:
        """Tombstone ids idle for transactional.id.expiration.ms in Empty/CompleteX."""
        now = self.clock.now_ms()
        cutoff = now - self.config.transactional_id_expiration_ms
        by_partition: dict[int, list[tuple[TransactionMetadata, TxnTransit]]] = {}
        for txn in list(self._txns.values()):
            if txn.state.is_expiration_allowed and not txn.pending and txn.last_update_timestamp <= cutoff:
                transit = txn.prepare_dead(now)
                by_partition.setdefault(self.partition_for(txn.transactional_id), []).append((txn, transit))
        expired: list[str] = []
        for partition, entries in by_partition.items():
            records: list[tuple[bytes, bytes | None]] = [
                (encode_key(t.transactional_id), None) for t, _ in entries
            ]
            try:
                await self.log_store.append(partition, records)
            except BaseException as exc:
                for txn, _ in entries:
                    txn.abort_transition()
                    self._notify(txn.transactional_id)
                if not isinstance(exc, Exception):
                    raise
                log.warning("expiring transactional ids failed", partition=partition, error=repr(exc))
                continue
            for txn, transit in entries:
                if self._txns.get(txn.transactional_id) is txn:
                    txn.complete_transition(transit)
                    del self._txns[txn.transactional_id]
                    expired.append(txn.transactional_id)
                self._notify(txn.transactional_id)
        return expired

    # --- KIP-664 ------------------------------------------------------------------------------------

    def describe(self, transactional_id: str) -> tuple[int, TransactionDescription | None]:
        if not transactional_id:
            return ErrorCode.INVALID_REQUEST, None
        if err := self._status_error():
            return err, None
        txn = self._txns.get(transactional_id)
        if txn is None or txn.state is S.DEAD or txn.pending_state is S.DEAD:
            return ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, None
        return ErrorCode.NONE, _describe(txn)

    def list_transactions(
        self,
        state_filters: Iterable[str] = (),
        producer_id_filters: Iterable[int] = (),
        duration_filter_ms: int = -1,
        transactional_id_pattern: str | None = None,
    ) -> ListTransactionsResult:
        result = ListTransactionsResult()
        if err := self._status_error():
            result.error_code = err
            return result
        state_names = list(state_filters)
        states: set[TransactionState] = set()
        for name in state_names:
            state = TransactionState.from_name(name)
            if state is None:
                result.unknown_state_filters.append(name)
            else:
                states.add(state)
        pids = set(producer_id_filters)
        pattern: re.Pattern[str] | None = None
        if transactional_id_pattern:
            try:
                pattern = re.compile(transactional_id_pattern)
            except re.error:
                result.error_code = ErrorCode.INVALID_REGULAR_EXPRESSION
                return result
        now = self.clock.now_ms()
        for txn in self._txns.values():
            if txn.state is S.DEAD:
                continue
            if pids and txn.producer_id not in pids:
                continue
            if state_names and txn.state not in states:
                continue
            if duration_filter_ms >= 0 and now - txn.start_timestamp <= duration_filter_ms:
                continue
            if pattern is not None and not pattern.fullmatch(txn.transactional_id):
                continue
            result.transactions.append(_describe(txn))
        return result

    # --- introspection (tests, DescribeProducers helpers) -----------------------------------------

    def metadata(self, transactional_id: str) -> TransactionMetadata | None:
        return self._txns.get(transactional_id)

    def transactional_ids(self) -> list[str]:
        return list(self._txns)

    def debug_state(self) -> dict[str, Any]:
        return {tid: (t.state.state_name, t.producer_id, t.producer_epoch) for tid, t in self._txns.items()}


_R = TypeVar("_R", int, InitProducerIdResult)


@functools.lru_cache(maxsize=16_384)
def _placement(transactional_id: str, num_partitions: int) -> tuple[int, bytes]:
    """The `__transaction_state` partition and record key of an id: both are computed for
    every transition of a live producer, so they are kept for the busiest ids."""
    return partition_for(transactional_id, num_partitions), encode_key(transactional_id)


def _error_code(result: int | InitProducerIdResult) -> int:
    return result.error_code if isinstance(result, InitProducerIdResult) else result


def _release(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _is_valid_producer_id(txn: TransactionMetadata, expected: tuple[int, int]) -> bool:
    """KIP-360: an expected (pid, epoch) is accepted for fresh metadata, for the current
    producer id, or for the previous one when its epoch was exhausted (a retry after rotation)."""
    pid, epoch = expected
    return (
        txn.producer_epoch == NO_PRODUCER_EPOCH
        or pid == txn.producer_id
        or (pid == txn.prev_producer_id and is_epoch_exhausted(epoch))
    )


def _describe(txn: TransactionMetadata) -> TransactionDescription:
    return TransactionDescription(
        transactional_id=txn.transactional_id,
        state=txn.state,
        timeout_ms=txn.timeout_ms,
        start_timestamp=txn.start_timestamp,
        producer_id=txn.producer_id,
        producer_epoch=txn.producer_epoch,
        partitions=frozenset(txn.partitions),
    )
