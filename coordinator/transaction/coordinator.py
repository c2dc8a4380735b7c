"""The transaction coordinator (KIP-98; transaction versions 1 and 2 of KIP-890, two-phase
commit of KIP-939): the API the handlers call.

Every state change goes through `TransactionMetadata.prepare_*` (pending state), a durable
append to `__transaction_state`, and only then `complete_transition` (see
`state_manager.py`). The event loop is single-threaded, so a check and the prepare that
follows it are atomic as long as no `await` separates them; the pending state covers the
append, which runs shielded from the request so that a client leaving cannot split
"appended" from "applied".

The parts: `state_manager.py` (the metadata cache and its log), `completion.py` (markers
and CompleteX after EndTxn), `busy.py` (waiting for a busy id), `expiry.py` (timeouts and
expired ids), `producer_id.py` (InitProducerId), `describe.py` (KIP-664). Time comes only
from the injected clock.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog

from coordinator.log import CoordinatorLog, CoordinatorLogError
from coordinator.producer_ids import ProducerIdManager
from coordinator.transaction.busy import BusyIds
from coordinator.transaction.completion import Completions
from coordinator.transaction.config import TransactionConfig
from coordinator.transaction.describe import (
    ListTransactionsResult,
    TransactionDescription,
    describe,
    is_described,
    list_transactions,
)
from coordinator.transaction.expiry import TransactionExpiry
from coordinator.transaction.markers import MarkerWriter
from coordinator.transaction.metadata import (
    MAX_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    IllegalTransitionError,
    TopicPartition,
    TransactionMetadata,
    TxnError,
    is_epoch_exhausted,
)
from coordinator.transaction.producer_id import InitProducerId, InitProducerIdResult
from coordinator.transaction.state import TransactionState
from coordinator.transaction.state_manager import CoordinatorStatus, RetryWindow, TransactionStateManager
from protocol.errors import ErrorCode

if TYPE_CHECKING:
    from storage.clock import Clock

log = structlog.get_logger("odradek.txn")

S = TransactionState
_COMPLETE = (S.COMPLETE_COMMIT, S.COMPLETE_ABORT)


@dataclass(frozen=True)
class EndTxnResult:
    error_code: int
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH

__all__ = [
    "CoordinatorStatus",
    "EndTxnResult",
    "InitProducerIdResult",
    "ListTransactionsResult",
    "TransactionConfig",
    "TransactionCoordinator",
    "TransactionDescription",
]


class TransactionCoordinator:
    def __init__(
        self,
        log_store: CoordinatorLog,
        marker_writer: MarkerWriter,
        producer_ids: ProducerIdManager,
        clock: Clock,
        config: TransactionConfig,
        owns_all_partitions: bool = True,
    ) -> None:
        """`owns_all_partitions`: a single broker's coordinator, owning every partition
        (loading until `load()`); otherwise it owns none until `on_election`."""
        self.log_store = log_store
        self.marker_writer = marker_writer
        self.producer_ids = producer_ids
        self.clock = clock
        self.config = config
        self.state = TransactionStateManager(log_store, clock, owns_all_partitions)
        # Only a single broker defers its transactions' data durability: see
        # `defers_data_durability`.
        self.defers_data = owns_all_partitions
        # Wall time of the last load from the log (operators watch it; not a protocol timer).
        self.load_seconds: float | None = None
        # Stamped on every marker: the leader epoch of the id's __transaction_state partition.
        self.completions = Completions(
            self.state, marker_writer, clock, self.config, self.state.epoch_of
        )
        self.expiry = TransactionExpiry(self.state, clock, self.config, self._abort_with_epoch_fence)
        self.busy = BusyIds(self.state, self.completions, clock, self.config)
        self._init_producer_id = InitProducerId(
            self.state, producer_ids, clock, self.config, self._abort_with_epoch_fence
        )

    # --- lifecycle ---------------------------------------------------------------------------

    @property
    def status(self) -> CoordinatorStatus:
        return self.state.status

    def partition_for(self, transactional_id: str) -> int:
        return self.state.partition_for(transactional_id)

    @property
    def coordinator_epoch(self) -> int:
        """The newest leader epoch among the partitions this coordinator owns (a single
        broker loads them all at one epoch); markers carry their own partition's."""
        return max((max(o.epoch, 0) for p in self.state.ownership.partitions()
                    if (o := self.state.ownership.get(p)) is not None), default=0)

    async def load(self, *, after_unclean_shutdown: bool = False) -> None:
        """Single-broker mode: (re)load every partition of `__transaction_state`, at leader
        epoch 0 the first time, start serving, and finish every transaction the log left
        in PrepareCommit/PrepareAbort. After an unclean shutdown the transactions left
        Ongoing are aborted too (see `defers_data_durability`)."""
        started = time.perf_counter()
        ownership = self.state.ownership
        tasks = [
            task for p in range(self.log_store.num_partitions)
            if (task := self._elect(p, ownership.next_epoch(p), complete=False)) is not None
        ]
        resumed = [txn for found in await asyncio.gather(*tasks) for txn in found]
        self.load_seconds = time.perf_counter() - started
        self.expiry.schedule()
        for txn in resumed:
            self.completions.start(txn)
        aborted = await self.expiry.abort_left_open() if after_unclean_shutdown else []
        log.info("transaction state loaded", transactions=len(self.state), completing=len(resumed),
                 aborted_after_unclean_shutdown=len(aborted))

    # --- leadership of the partitions (Kafka's onElection / onResignation) -----------------------

    def on_election(self, partition: int, leader_epoch: int) -> asyncio.Task[list[TransactionMetadata]] | None:
        """This broker leads `partition` of `__transaction_state` at `leader_epoch`, which
        becomes the coordinator epoch of its ids' markers: they answer
        COORDINATOR_LOAD_IN_PROGRESS at once, and are served once the task returned ends
        (loading the partition; it then completes the transactions the log left in
        PrepareCommit/PrepareAbort, as after a restart). An epoch not newer than the last
        seen for the partition is stale: ignored, None returned. A newer epoch of a
        partition already owned reloads it (Kafka's loadTransactionsForTxnTopicPartition)."""
        return self._elect(partition, leader_epoch, complete=True)

    def on_resignation(self, partition: int, leader_epoch: int | None) -> asyncio.Future[list[Any]] | None:
        """This broker no longer leads `partition`: from now its ids answer NOT_COORDINATOR,
        and their completions and durable steps in flight are cancelled (the task returned
        ends when they have). Ignored (None) when `leader_epoch` is older than the epoch the
        partition was elected at (a late notification), or the partition is not owned;
        None as the epoch resigns whatever it is (Kafka's removeTransactionsForTxnTopicPartition)."""
        owned = self.state.ownership.resign(partition, leader_epoch)
        if owned is None:
            return None
        log.info("unloading transaction state partition", partition=partition, epoch=leader_epoch)
        return self._unload(partition)

    def _elect(
        self, partition: int, epoch: int, *, complete: bool
    ) -> asyncio.Task[list[TransactionMetadata]] | None:
        previous, owned = self.state.ownership.elect(partition, epoch)
        if owned is None:
            log.info("ignored a stale election", partition=partition, epoch=epoch)
            return None
        unloading = None if previous is None else self._unload(partition)

        async def load() -> list[TransactionMetadata]:
            if unloading is not None:
                await unloading
            started = time.perf_counter()
            try:
                resumed = await self.state.load_partition(owned)
            except Exception:
                # Kafka's failed load: NOT_COORDINATOR until elected again.
                log.exception("loading a __transaction_state partition failed", partition=partition)
                if self.state.ownership.get(partition) is owned:
                    self.state.ownership.resign(partition, None)
                    await self._unload(partition)
                return []
            if resumed is None:
                return []  # resigned (or elected again) while replaying
            self.load_seconds = time.perf_counter() - started
            if complete:
                self.expiry.schedule_once()
                for txn in resumed:
                    self.completions.start(txn)
            log.info("transaction state partition loaded", partition=partition, epoch=epoch,
                     completing=len(resumed))
            return resumed

        return asyncio.get_running_loop().create_task(load(), name=f"load-transaction-state-{partition}")

    def _unload(self, partition: int) -> asyncio.Future[list[Any]]:
        """Drop the partition's ids and work at once; the awaitable ends once the cancelled
        work has."""
        completions = self.completions.cancel_partition(partition, self.state.partition_for)
        steps = self.state.unload_partition(partition)
        return asyncio.gather(*completions, *steps, return_exceptions=True)

    def defers_data_durability(self, transactional_id: str | None) -> bool:
        """Whether a Produce of this id's transaction is answered before its data is
        durable: a transaction's data counts only once the transaction is decided, and
        EndTxn is answered only once its PrepareCommit/PrepareAbort is durable, in a round
        that covers every write before it. A PrepareCommit is written only once the data
        is durable (an fsync of the transaction log could otherwise carry it to the disk
        first, and a power loss would leave a commit of records that are gone). The hole
        this leaves, a power loss taking data already acknowledged while the transaction
        is Ongoing, is closed at the next start: after an unclean shutdown the Ongoing
        transactions that wrote data are aborted, as if they had timed out. Not for a
        two-phase-commit transaction (KIP-939): what it prepared must survive a restart as
        it is, for the external coordinator to commit.

        Never in a cluster: the PrepareX round covers this broker's engine only, and a data
        partition may be led elsewhere, or move away before its round ran (its lazy writes
        then fenced, storage/postgres/cluster/leadership.py). There every leader answers a
        transactional Produce with acks=all only once its round committed under the
        leader's epoch fence (broker/dataplane/replica_manager.py), and a producer sends
        EndTxn only once every Produce of the transaction was answered (Kafka's
        TransactionManager: the commit waits for the batches in flight; one that failed
        makes the transaction abortable). So when PrepareCommit is written, all the data it
        commits is already in PostgreSQL, whichever broker led its partition, and a new
        leader after a failover serves it."""
        if not self.defers_data:
            return False
        txn = self.state.get(transactional_id) if transactional_id else None
        return txn is not None and not txn.is_two_phase_commit

    async def ensure_log(self) -> ErrorCode:
        """Create `__transaction_state` if it is missing (FindCoordinator does, as in Kafka):
        in a cluster no coordinator owns a partition of it, and none appends, before its
        partitions have leaders."""
        try:
            await self.log_store.ensure_topic()
        except CoordinatorLogError:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        return ErrorCode.NONE

    async def shutdown(self) -> None:
        """Resign: drop the cache and the work in flight; callers get NOT_COORDINATOR."""
        self.state.stopped = True
        await self.completions.cancel_all()
        await self.state.resign()

    async def wait_for_markers(self) -> None:
        """Wait until no transaction has markers in flight (tests and clean shutdown)."""
        await self.completions.wait_all()

    # --- InitProducerId ------------------------------------------------------------------------

    async def init_producer_id(
        self,
        transactional_id: str | None,
        transaction_timeout_ms: int,
        expected_producer_id: int = NO_PRODUCER_ID,
        expected_producer_epoch: int = NO_PRODUCER_EPOCH,
        enable_2pc: bool = False,
        keep_prepared_txn: bool = False,
    ) -> InitProducerIdResult:
        def attempt() -> Awaitable[InitProducerIdResult]:
            return self._init_producer_id(
                transactional_id,
                transaction_timeout_ms,
                expected_producer_id,
                expected_producer_epoch,
                enable_2pc,
                keep_prepared_txn,
            )

        if not transactional_id:
            return await attempt()  # an idempotent producer: no transaction to wait for
        # Fencing an open transaction answers CONCURRENT_TRANSACTIONS as Kafka does, without
        # waiting for the abort it started; a request that finds work already in flight waits.
        return await self.busy.settle(transactional_id, attempt, idle_answers_at_once=True)

    async def _abort_with_epoch_fence(self, txn: TransactionMetadata) -> int:
        """PrepareAbort at epoch+1 (fencing the producer that left the transaction open),
        then its markers and CompleteAbort."""
        transit = txn.prepare_fence_and_abort(self.clock.now_ms())
        return await self.state.write(txn, transit, then=self._complete_if_written(txn))

    def _complete_if_written(self, txn: TransactionMetadata) -> Callable[[int], None]:
        def start(err: int) -> None:
            if err == ErrorCode.NONE:
                self.completions.start(txn)

        return start

    # --- AddPartitionsToTxn / AddOffsetsToTxn ----------------------------------------------------

    def _check_producer(
        self, transactional_id: str, producer_id: int, producer_epoch: int
    ) -> TransactionMetadata:
        """The checks AddPartitions and EndTxn share, in Kafka's order."""
        txn = self.state.get(transactional_id)
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
        client_transaction_version: int | None = None,
        *,
        answer_before_durable: bool = False,
    ) -> int:
        """AddPartitionsToTxn, or (transaction version 2) the implicit add of a Produce.

        With `answer_before_durable` (a client's AddPartitionsToTxn) the answer goes out at
        once, while the record is appended and made durable; the state still changes only
        once it is durable. Safe because nothing of the transaction reaches a log
        before that: the Produce that follows waits for it in `verify_when_settled`. An
        append that fails retriably is made again for a while (the client, told NONE,
        cannot retry it); a write that failed for good refuses the Produce, so the producer
        aborts."""
        wanted = set(partitions)
        return await self.busy.settle(
            transactional_id,
            lambda: self._add_partitions(
                transactional_id, producer_id, producer_epoch, wanted, client_transaction_version,
                answer_before_durable,
            ),
            takes_over=True,
        )

    async def _add_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        wanted: set[TopicPartition],
        client_transaction_version: int | None,
        answer_before_durable: bool,
    ) -> int:
        if not transactional_id:
            return ErrorCode.INVALID_REQUEST
        if err := self.state.status_error(transactional_id):
            return err
        try:
            txn = self._check_producer(transactional_id, producer_id, producer_epoch)
        except TxnError as exc:
            return exc.error_code
        if txn.state.is_prepare:
            return await self._complete_and_add(txn, wanted, client_transaction_version, answer_before_durable)
        if txn.state is S.ONGOING and wanted <= txn.partitions:
            return ErrorCode.NONE
        try:
            transit = txn.prepare_add_partitions(wanted, self.clock.now_ms(), client_transaction_version)
        except IllegalTransitionError:
            log.exception("AddPartitions in an unexpected state", transactional_id=transactional_id)
            return ErrorCode.UNKNOWN_SERVER_ERROR
        if answer_before_durable:
            self.state.write_soon(txn, transit, retry=self._answered_add_retry())
            return ErrorCode.NONE
        return await self.state.write(txn, transit)

    def _answered_add_retry(self) -> RetryWindow:
        return RetryWindow(self.config.answered_add_retry_ms, self.config.retry_backoff_ms)

    async def _complete_and_add(
        self,
        txn: TransactionMetadata,
        wanted: set[TopicPartition],
        client_transaction_version: int | None,
        answer_before_durable: bool,
    ) -> int:
        """If the previous transaction's markers are durable but its CompleteX is held back,
        write CompleteX and the new transaction's Ongoing as one batch (one fsync), as if
        the completion had been logged just before this request arrived."""
        tid = txn.transactional_id
        if not self.completions.is_held(txn):
            return ErrorCode.CONCURRENT_TRANSACTIONS
        try:
            complete, ongoing = txn.prepare_complete_and_add_partitions(
                wanted, self.clock.now_ms(), client_transaction_version
            )
        except IllegalTransitionError:
            log.exception("AddPartitions after markers in an unexpected state", transactional_id=tid)
            return ErrorCode.UNKNOWN_SERVER_ERROR
        # This request takes the completion over: it ends without writing anything.
        self.completions.take_over(tid)

        def complete_anyway(err: int) -> None:
            if err and self.state.is_current(txn) and txn.state.is_prepare:
                # Not written: CompleteX is still owed, and the markers are already durable.
                self.completions.start(txn, markers_durable=True)

        if answer_before_durable:
            self.state.write_soon(txn, complete, ongoing, then=complete_anyway, retry=self._answered_add_retry())
            return ErrorCode.NONE
        return await self.state.write(txn, complete, ongoing, then=complete_anyway)

    async def verify_when_settled(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
    ) -> dict[TopicPartition, int]:
        """`verify_partitions` once no transition of the id is being appended: an
        AddPartitionsToTxn answered before its record was durable joins its partitions
        when it is, and no data of the transaction may reach a log before then. Still
        pending after `concurrent_wait_ms`: CONCURRENT_TRANSACTIONS, which the producer
        retries."""
        wanted = list(partitions)
        if transactional_id and not await self.state.settle(transactional_id, self.config.concurrent_wait_ms):
            return dict.fromkeys(wanted, ErrorCode.CONCURRENT_TRANSACTIONS)
        return self.verify_partitions(transactional_id, producer_id, producer_epoch, wanted)

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
        err = ErrorCode.INVALID_REQUEST if not transactional_id else self.state.status_error(transactional_id)
        if not err:
            txn = self.state.get(transactional_id)
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
        result = await self.end_transaction(transactional_id, producer_id, producer_epoch, commit)
        return result.error_code

    async def end_transaction(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        commit: bool,
        client_transaction_version: int = 0,
    ) -> EndTxnResult:
        """EndTxn; with transaction version 2 (EndTxn v5) the answer carries the producer id
        and epoch the producer goes on with (bumped at every end)."""

        async def attempt() -> EndTxnResult:
            if client_transaction_version >= 2:
                return await self._end_txn_v2(transactional_id, producer_id, producer_epoch, commit)
            error = await self._end_txn(transactional_id, producer_id, producer_epoch, commit)
            return EndTxnResult(error, producer_id, producer_epoch)

        result = await self.busy.settle(transactional_id, attempt)
        if result.error_code == ErrorCode.INVALID_TXN_STATE:
            self._log_refused_end(transactional_id, producer_id, producer_epoch, commit)
        return result

    def _log_refused_end(self, transactional_id: str, producer_id: int, producer_epoch: int, commit: bool) -> None:
        """INVALID_TXN_STATE is fatal for a producer: say which state refused which end (as
        Kafka's TransactionCoordinator logs an invalid transition), so a failed run shows it."""
        txn = self.state.get(transactional_id)
        completion = self.completions.get(transactional_id)
        log.warning(
            "EndTxn refused: INVALID_TXN_STATE", transactional_id=transactional_id,
            requested="commit" if commit else "abort", producer_id=producer_id, producer_epoch=producer_epoch,
            state=None if txn is None else txn.state.state_name,
            pending=None if txn is None or txn.pending_state is None else txn.pending_state.state_name,
            epoch=None if txn is None else txn.producer_epoch,
            completion=None if completion is None else completion.phase.value,
        )

    async def _end_txn(
        self, transactional_id: str, producer_id: int, producer_epoch: int, commit: bool
    ) -> int:
        if not transactional_id:
            return ErrorCode.INVALID_REQUEST
        if err := self.state.status_error(transactional_id):
            return err
        txn = self.state.get(transactional_id)
        # EndTxn checks the producer id before the pending state, as Kafka's handleEndTransaction.
        if txn is None or txn.producer_id != producer_id:
            return ErrorCode.INVALID_PRODUCER_ID_MAPPING
        if txn.producer_epoch != producer_epoch:
            return ErrorCode.PRODUCER_FENCED
        if txn.pending:
            return ErrorCode.CONCURRENT_TRANSACTIONS
        state = txn.state
        if state is S.ONGOING:
            # Answered once PrepareX is durable; the markers follow asynchronously.
            transit = txn.prepare_end(commit, self.clock.now_ms())
            return await self.state.write(txn, transit, then=self._complete_if_written(txn))
        if state is S.PREPARE_COMMIT:
            return ErrorCode.CONCURRENT_TRANSACTIONS if commit else ErrorCode.INVALID_TXN_STATE
        if state is S.PREPARE_ABORT:
            return ErrorCode.INVALID_TXN_STATE if commit else ErrorCode.CONCURRENT_TRANSACTIONS
        if state is S.COMPLETE_COMMIT:
            return ErrorCode.NONE if commit else ErrorCode.INVALID_TXN_STATE
        if state is S.COMPLETE_ABORT:
            return ErrorCode.INVALID_TXN_STATE if commit else ErrorCode.NONE
        return ErrorCode.INVALID_TXN_STATE

    async def _end_txn_v2(
        self, transactional_id: str, producer_id: int, producer_epoch: int, commit: bool
    ) -> EndTxnResult:
        """Kafka's `TransactionCoordinator.endTransaction` for transaction version 2. The
        epoch is bumped at every end, so an EndTxn at the epoch just below the current one
        is a retry of the last end (answered from the state), and anything older, such as
        a late EndTxn of an earlier transaction (KAFKA-17754), is fenced."""
        if not transactional_id:
            return EndTxnResult(ErrorCode.INVALID_REQUEST)
        if err := self.state.status_error(transactional_id):
            return EndTxnResult(err)
        txn = self.state.get(transactional_id)
        if txn is None:
            return EndTxnResult(ErrorCode.INVALID_PRODUCER_ID_MAPPING)
        next_producer_id = NO_PRODUCER_ID
        if is_epoch_exhausted(txn.producer_epoch) and txn.state is S.ONGOING:
            # Allocated ahead of the checks: they and the prepare must not be split by an await.
            next_producer_id = await self.producer_ids.generate()
            txn = self.state.get(transactional_id)
            if txn is None:
                return EndTxnResult(ErrorCode.INVALID_PRODUCER_ID_MAPPING)
        state = txn.state
        retry_on_overflow = (
            txn.prev_producer_id == producer_id and producer_epoch == MAX_EPOCH and txn.producer_epoch == 0
        )
        retry_on_bump = txn.producer_epoch == producer_epoch + 1
        if state.is_prepare:
            valid_epoch = retry_on_bump
        elif state.is_complete:
            valid_epoch = retry_on_bump or retry_on_overflow or producer_epoch == txn.producer_epoch
        else:
            valid_epoch = producer_epoch == txn.producer_epoch
        is_retry = retry_on_bump or retry_on_overflow
        current = EndTxnResult(ErrorCode.NONE, txn.producer_id, txn.producer_epoch)
        if txn.producer_id != producer_id and not retry_on_overflow:
            return EndTxnResult(ErrorCode.INVALID_PRODUCER_ID_MAPPING)
        if not valid_epoch:
            return EndTxnResult(ErrorCode.PRODUCER_FENCED)
        if txn.pending:
            return EndTxnResult(ErrorCode.CONCURRENT_TRANSACTIONS)
        if state is S.PREPARE_COMMIT:
            return EndTxnResult(ErrorCode.CONCURRENT_TRANSACTIONS if commit else ErrorCode.INVALID_TXN_STATE)
        if state is S.PREPARE_ABORT:
            return EndTxnResult(ErrorCode.INVALID_TXN_STATE if commit else ErrorCode.CONCURRENT_TRANSACTIONS)
        ended_as_asked = state is (S.COMPLETE_COMMIT if commit else S.COMPLETE_ABORT)
        if ended_as_asked and is_retry:
            return current
        # Beyond this, only an Ongoing transaction ends, or an abort of one that added
        # nothing starts from Empty/Complete* (never a retried commit's opposite).
        aborts_idle = not commit and state in (S.EMPTY, *_COMPLETE) and not (is_retry and not ended_as_asked)
        if state is not S.ONGOING and not aborts_idle:
            return EndTxnResult(ErrorCode.INVALID_TXN_STATE)
        # Ongoing, or an abort of a transaction that added nothing (Empty/Complete*).
        transit = txn.prepare_end(
            commit,
            self.clock.now_ms(),
            client_transaction_version=2,
            next_producer_id=next_producer_id,
            no_partition_added=state is not S.ONGOING,
        )
        err = await self.state.write(txn, transit, then=self._complete_if_written(txn))
        if err:
            return EndTxnResult(err)
        if transit.next_producer_id != NO_PRODUCER_ID:
            return EndTxnResult(ErrorCode.NONE, transit.next_producer_id, 0)
        return EndTxnResult(ErrorCode.NONE, transit.producer_id, transit.producer_epoch)

    # --- time -------------------------------------------------------------------------------------

    async def tick(self) -> None:
        """Run the periodic jobs that are due (the broker calls this every second or so)."""
        await self.expiry.tick()

    async def abort_timed_out_transactions(self) -> list[str]:
        return await self.expiry.abort_timed_out_transactions()

    async def expire_transactional_ids(self) -> list[str]:
        return await self.expiry.expire_transactional_ids()

    # --- KIP-664 ------------------------------------------------------------------------------------

    def describe(self, transactional_id: str) -> tuple[int, TransactionDescription | None]:
        if not transactional_id:
            return ErrorCode.INVALID_REQUEST, None
        if err := self.state.status_error(transactional_id):
            return err, None
        txn = self.state.get(transactional_id)
        if txn is None or not is_described(txn):
            return ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, None
        return ErrorCode.NONE, describe(txn)

    def list_transactions(
        self,
        state_filters: Iterable[str] = (),
        producer_id_filters: Iterable[int] = (),
        duration_filter_ms: int = -1,
        transactional_id_pattern: str | None = None,
    ) -> ListTransactionsResult:
        if err := self.state.status_error():
            return ListTransactionsResult(error_code=err)
        return list_transactions(
            self.state,
            self.clock.now_ms(),
            state_filters,
            producer_id_filters,
            duration_filter_ms,
            transactional_id_pattern,
        )

    # --- introspection (tests, DescribeProducers helpers) -----------------------------------------

    def metadata(self, transactional_id: str) -> TransactionMetadata | None:
        return self.state.get(transactional_id)

    def transactional_ids(self) -> list[str]:
        return self.state.ids()

    def debug_state(self) -> dict[str, Any]:
        return {t.transactional_id: (t.state.state_name, t.producer_id, t.producer_epoch) for t in self.state}
