"""Per-transactional-id metadata with Kafka's two-step transitions.

A change is first prepared (`prepare_*` returns a `TxnTransit`, the target, and marks the
metadata with a pending state), then appended to `__transaction_state`, and only after
the append succeeds applied with `complete_transition`. A failed append calls
`abort_transition`, which leaves everything as it was. While a state is pending, other
requests for the same id get CONCURRENT_TRANSACTIONS.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from coordinator.transaction.state import TransactionState, is_valid_transition
from protocol.errors import ErrorCode
from storage.topic_partition import TopicPartition

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
MAX_EPOCH = 32767  # Short.MAX_VALUE
# KIP-939: a two-phase-commit transaction is stored with this timeout (Integer.MAX_VALUE),
# which is how the log says "never abort on timeout" across restarts.
TWO_PHASE_COMMIT_TIMEOUT_MS = 2**31 - 1


def is_epoch_exhausted(epoch: int) -> bool:
    """One epoch is kept in reserve so a fenced producer's bump can never overflow."""
    return epoch >= MAX_EPOCH - 1


class TxnError(Exception):
    """A request refused with a Kafka error code."""

    def __init__(self, error_code: int, message: str = "") -> None:
        super().__init__(message or str(error_code))
        self.error_code = error_code


class IllegalTransitionError(RuntimeError):
    """A transition the state table or the metadata invariants forbid (a bug, not a client error)."""


@dataclass(frozen=True, slots=True)
class TxnTransit:
    """The complete target of a transition; this is what is written to the log."""

    producer_id: int
    prev_producer_id: int
    next_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    timeout_ms: int
    state: TransactionState
    partitions: frozenset[TopicPartition]
    start_timestamp: int
    last_update_timestamp: int
    # The transaction version the client speaks (KIP-890): 2 bumps the epoch at every end.
    client_transaction_version: int = 0


@dataclass
class TransactionMetadata:
    transactional_id: str
    producer_id: int
    prev_producer_id: int = NO_PRODUCER_ID
    next_producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH
    # The epoch before the last bump, kept so a retried KIP-360 bump is answered with the
    # same epoch. Like Kafka it lives in memory only and is -1 after a reload.
    last_producer_epoch: int = NO_PRODUCER_EPOCH
    timeout_ms: int = 0
    state: TransactionState = TransactionState.EMPTY
    partitions: set[TopicPartition] = field(default_factory=set)
    start_timestamp: int = -1
    last_update_timestamp: int = -1
    pending_state: TransactionState | None = None
    client_transaction_version: int = 0
    # Set once the metadata has been written at least once; a fresh entry whose first
    # write fails is dropped again.
    persisted: bool = False

    # --- transitions -----------------------------------------------------------------------

    @property
    def pending(self) -> bool:
        return self.pending_state is not None

    @property
    def is_two_phase_commit(self) -> bool:
        return self.timeout_ms == TWO_PHASE_COMMIT_TIMEOUT_MS

    def _transit(
        self,
        state: TransactionState,
        *,
        producer_id: int | None = None,
        prev_producer_id: int | None = None,
        producer_epoch: int | None = None,
        last_producer_epoch: int | None = None,
        timeout_ms: int | None = None,
        partitions: frozenset[TopicPartition] | None = None,
        start_timestamp: int | None = None,
        next_producer_id: int | None = None,
        client_transaction_version: int | None = None,
        now_ms: int,
    ) -> TxnTransit:
        if self.pending_state is not None:
            raise IllegalTransitionError(
                f"{self.transactional_id}: {state.state_name} prepared while {self.pending_state.state_name} is pending"
            )
        if not is_valid_transition(self.state, state):
            raise IllegalTransitionError(
                f"{self.transactional_id}: {self.state.state_name} -> {state.state_name} is not a valid transition"
            )
        self.pending_state = state
        return TxnTransit(
            producer_id=self.producer_id if producer_id is None else producer_id,
            prev_producer_id=self.prev_producer_id if prev_producer_id is None else prev_producer_id,
            next_producer_id=self.next_producer_id if next_producer_id is None else next_producer_id,
            producer_epoch=self.producer_epoch if producer_epoch is None else producer_epoch,
            last_producer_epoch=self.last_producer_epoch
            if last_producer_epoch is None
            else last_producer_epoch,
            timeout_ms=self.timeout_ms if timeout_ms is None else timeout_ms,
            state=state,
            partitions=frozenset(self.partitions) if partitions is None else partitions,
            start_timestamp=self.start_timestamp if start_timestamp is None else start_timestamp,
            last_update_timestamp=now_ms,
            client_transaction_version=self.client_transaction_version
            if client_transaction_version is None
            else client_transaction_version,
        )

    def prepare_increment_epoch(self, expected_epoch: int | None, timeout_ms: int, now_ms: int) -> TxnTransit:
        """InitProducerId on a finished transaction: Kafka's prepareInitProducerIdTransit (KIP-360)."""
        bumped = self.producer_epoch + 1
        if expected_epoch is None:
            epoch, last = bumped, NO_PRODUCER_EPOCH
        elif self.producer_epoch == NO_PRODUCER_EPOCH or expected_epoch == self.producer_epoch:
            epoch, last = bumped, self.producer_epoch
        elif expected_epoch == self.last_producer_epoch:
            # A retry of a bump whose response was lost: answer with the epoch it got.
            epoch, last = self.producer_epoch, self.last_producer_epoch
        else:
            raise TxnError(ErrorCode.PRODUCER_FENCED)
        return self._transit(
            TransactionState.EMPTY,
            producer_epoch=epoch,
            last_producer_epoch=last,
            timeout_ms=timeout_ms,
            partitions=frozenset(),
            start_timestamp=-1,
            now_ms=now_ms,
        )

    def prepare_keep_prepared(self, now_ms: int) -> TxnTransit:
        """KIP-939 KeepPreparedTxn: a new producer instance takes over the open (prepared)
        two-phase-commit transaction instead of aborting it. The epoch is bumped so the old
        instance is fenced; the transaction, its partitions and start stay as they are."""
        if is_epoch_exhausted(self.producer_epoch):
            raise TxnError(ErrorCode.PRODUCER_FENCED, "the epoch is exhausted")
        return self._transit(
            TransactionState.ONGOING,
            producer_epoch=self.producer_epoch + 1,
            last_producer_epoch=NO_PRODUCER_EPOCH,
            now_ms=now_ms,
        )

    def prepare_producer_id_rotation(
        self, new_producer_id: int, timeout_ms: int, now_ms: int, record_last_epoch: bool
    ) -> TxnTransit:
        return self._transit(
            TransactionState.EMPTY,
            producer_id=new_producer_id,
            prev_producer_id=self.producer_id,
            producer_epoch=0,
            last_producer_epoch=self.producer_epoch if record_last_epoch else NO_PRODUCER_EPOCH,
            timeout_ms=timeout_ms,
            partitions=frozenset(),
            start_timestamp=-1,
            now_ms=now_ms,
        )

    def prepare_add_partitions(
        self, partitions: set[TopicPartition], now_ms: int, client_transaction_version: int | None = None
    ) -> TxnTransit:
        # A transaction's clock starts when its first partition is added.
        start = now_ms if self.state in _NOT_STARTED else self.start_timestamp
        return self._transit(
            TransactionState.ONGOING,
            partitions=frozenset(self.partitions | partitions),
            start_timestamp=start,
            client_transaction_version=client_transaction_version,
            now_ms=now_ms,
        )

    def prepare_end(
        self,
        commit: bool,
        now_ms: int,
        client_transaction_version: int = 0,
        next_producer_id: int = NO_PRODUCER_ID,
        no_partition_added: bool = False,
    ) -> TxnTransit:
        """Kafka's `prepareAbortOrCommit`. Transaction version 2 bumps the epoch here, so
        the markers carry a new epoch and anything the producer sent under the old one
        (a late Produce or EndTxn, KAFKA-17754) is refused; when the bump exhausts the
        epoch, `next_producer_id` is the id the producer continues with."""
        target = TransactionState.PREPARE_COMMIT if commit else TransactionState.PREPARE_ABORT
        if client_transaction_version >= 2:
            return self._transit(
                target,
                producer_epoch=self.producer_epoch + 1,
                last_producer_epoch=self.producer_epoch,
                next_producer_id=next_producer_id,
                # An abort with no partitions has no start of its own.
                start_timestamp=now_ms if no_partition_added else None,
                partitions=frozenset() if no_partition_added else None,
                client_transaction_version=client_transaction_version,
                now_ms=now_ms,
            )
        return self._transit(target, client_transaction_version=client_transaction_version, now_ms=now_ms)

    def prepare_fence_and_abort(self, now_ms: int) -> TxnTransit:
        """Abort an open transaction at epoch+1 so the producer that opened it is fenced.

        Kafka passes through the pending state PrepareEpochFence first; both steps are
        checked against the table here, and only the PrepareAbort is ever written. If that
        write fails nothing changes, so a later attempt bumps from the same epoch again
        (Kafka's hasFailedEpochFence)."""
        if self.producer_epoch >= MAX_EPOCH:
            raise IllegalTransitionError(f"{self.transactional_id}: cannot fence epoch {self.producer_epoch}")
        fence = self._transit(TransactionState.PREPARE_EPOCH_FENCE, now_ms=now_ms)
        self.pending_state = None
        self.state, saved = TransactionState.PREPARE_EPOCH_FENCE, self.state
        fenced_epoch = fence.producer_epoch + 1
        try:
            if self.client_transaction_version >= 2 and fenced_epoch < MAX_EPOCH:
                # The abort is then an EndTxn of version 2 and bumps once more, as Kafka's
                # TransactionCoordinator.endTransaction does (prepareAbortOrCommit after the
                # fence): the new producer's InitProducerId bumps a third time.
                return self._transit(
                    TransactionState.PREPARE_ABORT,
                    producer_epoch=fenced_epoch + 1,
                    last_producer_epoch=fenced_epoch,
                    now_ms=now_ms,
                )
            return self._transit(
                TransactionState.PREPARE_ABORT,
                producer_epoch=fenced_epoch,
                last_producer_epoch=NO_PRODUCER_EPOCH,
                now_ms=now_ms,
            )
        finally:
            self.state = saved

    def prepare_complete(self, now_ms: int) -> TxnTransit:
        if self.state == TransactionState.PREPARE_COMMIT:
            target = TransactionState.COMPLETE_COMMIT
        elif self.state == TransactionState.PREPARE_ABORT:
            target = TransactionState.COMPLETE_ABORT
        else:
            raise IllegalTransitionError(
                f"{self.transactional_id}: nothing to complete in {self.state.state_name}"
            )
        if self.client_transaction_version >= 2 and self.next_producer_id != NO_PRODUCER_ID:
            # The epoch ran out at the end of this transaction: the producer goes on with
            # the id allocated then, at epoch 0.
            return self._transit(
                target,
                producer_id=self.next_producer_id,
                prev_producer_id=self.producer_id,
                producer_epoch=0,
                last_producer_epoch=NO_PRODUCER_EPOCH,
                next_producer_id=NO_PRODUCER_ID,
                partitions=frozenset(),
                now_ms=now_ms,
            )
        return self._transit(target, partitions=frozenset(), now_ms=now_ms)

    def prepare_complete_and_add_partitions(
        self, partitions: set[TopicPartition], now_ms: int, client_transaction_version: int | None = None
    ) -> tuple[TxnTransit, TxnTransit]:
        """CompleteCommit/CompleteAbort of a transaction whose markers are durable, and the
        next transaction's first AddPartitions on top of it: two records written in one
        batch, applied in order by `complete_transitions`."""
        complete = self.prepare_complete(now_ms)
        if not is_valid_transition(complete.state, TransactionState.ONGOING):
            self.pending_state = None
            raise IllegalTransitionError(
                f"{self.transactional_id}: {complete.state.state_name} -> Ongoing is not a valid transition"
            )
        ongoing = replace(
            complete,
            state=TransactionState.ONGOING,
            partitions=frozenset(partitions),
            start_timestamp=now_ms,
            client_transaction_version=complete.client_transaction_version
            if client_transaction_version is None
            else client_transaction_version,
        )
        return complete, ongoing

    def complete_transitions(self, transits: list[TxnTransit]) -> None:
        """Apply transitions written together, in order; the first is the pending one."""
        for i, transit in enumerate(transits):
            if i:
                self.pending_state = transit.state
            self.complete_transition(transit)

    def prepare_dead(self, now_ms: int) -> TxnTransit:
        return self._transit(TransactionState.DEAD, partitions=frozenset(), now_ms=now_ms)

    def abort_transition(self) -> None:
        self.pending_state = None

    def complete_transition(self, transit: TxnTransit) -> None:
        """Apply a transition whose log append succeeded, re-checking Kafka's invariants."""
        if self.pending_state != transit.state:
            raise IllegalTransitionError(
                f"{self.transactional_id}: completing {transit.state.state_name}, pending "
                f"{self.pending_state.state_name if self.pending_state else None}"
            )
        epoch_ok = transit.producer_epoch in (self.producer_epoch, self.producer_epoch + 1) or (
            transit.producer_epoch == 0 and transit.producer_id != self.producer_id
        ) or (
            # The fence's bump and the version-2 abort's, written as one PrepareAbort.
            transit.state == TransactionState.PREPARE_ABORT
            and transit.last_producer_epoch == self.producer_epoch + 1
            and transit.producer_epoch == self.producer_epoch + 2
        )
        if not epoch_ok:
            raise IllegalTransitionError(
                f"{self.transactional_id}: epoch {self.producer_epoch} -> {transit.producer_epoch}"
            )
        if transit.timeout_ms != self.timeout_ms and transit.state != TransactionState.EMPTY:
            raise IllegalTransitionError(
                f"{self.transactional_id}: the timeout changes only at InitProducerId"
            )
        if transit.state == TransactionState.ONGOING and not transit.partitions >= self.partitions:
            raise IllegalTransitionError(
                f"{self.transactional_id}: partitions may only be added while Ongoing"
            )
        self.producer_id = transit.producer_id
        self.prev_producer_id = transit.prev_producer_id
        self.next_producer_id = transit.next_producer_id
        self.producer_epoch = transit.producer_epoch
        self.last_producer_epoch = transit.last_producer_epoch
        self.timeout_ms = transit.timeout_ms
        self.state = transit.state
        self.partitions = set(transit.partitions)
        # Kafka 4.0's completeTransitionTo leaves the start of the last transaction in memory
        # on InitProducerId (the record says -1): DescribeTransactions keeps showing it, also
        # after a fence (Admin.fenceProducers).
        if transit.state != TransactionState.EMPTY:
            self.start_timestamp = transit.start_timestamp
        self.last_update_timestamp = transit.last_update_timestamp
        self.client_transaction_version = transit.client_transaction_version
        self.pending_state = None
        self.persisted = True

    def snapshot(self) -> TxnTransit:
        """The current state as a transit (what a reload of the log would produce)."""
        return TxnTransit(
            producer_id=self.producer_id,
            prev_producer_id=self.prev_producer_id,
            next_producer_id=self.next_producer_id,
            producer_epoch=self.producer_epoch,
            last_producer_epoch=self.last_producer_epoch,
            timeout_ms=self.timeout_ms,
            state=self.state,
            partitions=frozenset(self.partitions),
            start_timestamp=self.start_timestamp,
            last_update_timestamp=self.last_update_timestamp,
            client_transaction_version=self.client_transaction_version,
        )

    @classmethod
    def from_transit(cls, transactional_id: str, transit: TxnTransit) -> TransactionMetadata:
        return cls(
            transactional_id=transactional_id,
            producer_id=transit.producer_id,
            prev_producer_id=transit.prev_producer_id,
            next_producer_id=transit.next_producer_id,
            producer_epoch=transit.producer_epoch,
            last_producer_epoch=NO_PRODUCER_EPOCH,
            timeout_ms=transit.timeout_ms,
            state=transit.state,
            partitions=set(transit.partitions),
            start_timestamp=transit.start_timestamp,
            last_update_timestamp=transit.last_update_timestamp,
            client_transaction_version=transit.client_transaction_version,
            persisted=True,
        )


_NOT_STARTED = frozenset(
    {TransactionState.EMPTY, TransactionState.COMPLETE_COMMIT, TransactionState.COMPLETE_ABORT}
)
