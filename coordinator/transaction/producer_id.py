"""InitProducerId for a transactional id (KIP-98, KIP-360): which expected producer is
accepted, when the producer id rotates, and the transition a finished transaction takes;
a transaction left open is aborted at a bumped epoch (the caller's fence)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog

from coordinator.producer_ids import ProducerIdManager
from coordinator.transaction.metadata import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    TWO_PHASE_COMMIT_TIMEOUT_MS,
    TransactionMetadata,
    TxnError,
    TxnTransit,
    is_epoch_exhausted,
)
from coordinator.transaction.state import TransactionState
from coordinator.transaction.state_manager import TransactionStateManager
from protocol.errors import ErrorCode

if TYPE_CHECKING:
    from coordinator.transaction.config import TransactionConfig
    from storage.clock import Clock

log = structlog.get_logger("odradek.txn")

S = TransactionState


@dataclass(frozen=True, slots=True)
class InitProducerIdResult:
    error_code: int
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH
    # KIP-939 KeepPreparedTxn: the transaction the new instance took over, to commit or abort.
    ongoing_txn_producer_id: int = NO_PRODUCER_ID
    ongoing_txn_producer_epoch: int = NO_PRODUCER_EPOCH


def expected_producer(producer_id: int, producer_epoch: int) -> tuple[int, int] | None:
    """The (pid, epoch) a KIP-360 client says it holds, or None for a fresh start."""
    return None if producer_id == NO_PRODUCER_ID else (producer_id, producer_epoch)


def is_valid_producer_id(txn: TransactionMetadata, expected: tuple[int, int]) -> bool:
    """KIP-360: an expected (pid, epoch) is accepted for fresh metadata, for the current
    producer id, or for the previous one when its epoch was exhausted (a retry after rotation)."""
    pid, epoch = expected
    return (
        txn.producer_epoch == NO_PRODUCER_EPOCH
        or pid == txn.producer_id
        or (pid == txn.prev_producer_id and is_epoch_exhausted(epoch))
    )


def needs_rotation(txn: TransactionMetadata, expected: tuple[int, int] | None) -> bool:
    """The epoch cannot be bumped any more: the id gets a new producer id at epoch 0."""
    return is_epoch_exhausted(txn.producer_epoch) and (expected is None or expected[1] == txn.producer_epoch)


def prepare_new_producer(
    txn: TransactionMetadata,
    expected: tuple[int, int] | None,
    timeout_ms: int,
    now_ms: int,
    rotation_pid: int | None,
) -> TxnTransit:
    """The Empty transition InitProducerId writes for a finished transaction: a new producer
    id when `rotation_pid` is given, else the next epoch (raises TxnError when fenced)."""
    if rotation_pid is not None:
        return txn.prepare_producer_id_rotation(
            rotation_pid, timeout_ms, now_ms, record_last_epoch=expected is not None
        )
    return txn.prepare_increment_epoch(None if expected is None else expected[1], timeout_ms, now_ms)


class InitProducerId:
    def __init__(
        self,
        state: TransactionStateManager,
        producer_ids: ProducerIdManager,
        clock: Clock,
        config: TransactionConfig,
        fence: Callable[[TransactionMetadata], Awaitable[int]],
    ) -> None:
        self.state = state
        self.producer_ids = producer_ids
        self.clock = clock
        self.config = config
        # Aborts the open transaction of a previous instance at a bumped epoch.
        self._fence = fence

    async def __call__(
        self,
        transactional_id: str | None,
        transaction_timeout_ms: int,
        expected_producer_id: int,
        expected_producer_epoch: int,
        enable_2pc: bool = False,
        keep_prepared_txn: bool = False,
    ) -> InitProducerIdResult:
        if (expected_producer_id == NO_PRODUCER_ID) != (expected_producer_epoch == NO_PRODUCER_EPOCH):
            return InitProducerIdResult(ErrorCode.INVALID_REQUEST)
        if transactional_id is None and not (enable_2pc or keep_prepared_txn):
            # Idempotent producer: any broker answers with a fresh id.
            return InitProducerIdResult(ErrorCode.NONE, await self.producer_ids.generate(), 0)
        if not transactional_id or (keep_prepared_txn and not enable_2pc):
            return InitProducerIdResult(ErrorCode.INVALID_REQUEST)
        if enable_2pc:
            if not self.config.two_phase_commit_enable:
                # Not an UNSUPPORTED_* code, as in Kafka: a client cannot probe the setting.
                return InitProducerIdResult(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
            transaction_timeout_ms = TWO_PHASE_COMMIT_TIMEOUT_MS
        elif not 0 < transaction_timeout_ms <= self.config.max_timeout_ms:
            return InitProducerIdResult(ErrorCode.INVALID_TRANSACTION_TIMEOUT)
        if err := self.state.status_error(transactional_id):
            return InitProducerIdResult(err)
        expected = expected_producer(expected_producer_id, expected_producer_epoch)

        created: TransactionMetadata | None = None
        txn = self.state.get(transactional_id)
        if txn is None:
            new_pid = await self.producer_ids.generate()
            if err := self.state.status_error(transactional_id):
                return InitProducerIdResult(err)
            txn = self.state.get(transactional_id)
            if txn is None:
                txn = created = TransactionMetadata(
                    transactional_id,
                    new_pid,
                    timeout_ms=transaction_timeout_ms,
                    last_update_timestamp=self.clock.now_ms(),
                )
                self.state.add(txn)

        rotation_pid: int | None = None
        while True:
            if txn.pending:
                return InitProducerIdResult(ErrorCode.CONCURRENT_TRANSACTIONS)
            if expected is not None and not is_valid_producer_id(txn, expected):
                return InitProducerIdResult(ErrorCode.PRODUCER_FENCED)
            if txn.state.is_prepare:
                return InitProducerIdResult(ErrorCode.CONCURRENT_TRANSACTIONS)
            if txn.state is S.ONGOING and keep_prepared_txn and txn.is_two_phase_commit:
                return await self._keep_prepared(txn)
            if txn.state is S.ONGOING:
                # A new instance found its predecessor's transaction open: abort it at a
                # bumped epoch; the new instance retries until the abort completes.
                err = await self._fence(txn)
                return InitProducerIdResult(err or ErrorCode.CONCURRENT_TRANSACTIONS)
            if txn.state not in (S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT):
                log.error(
                    "unexpected state at InitProducerId", transactional_id=transactional_id, state=txn.state
                )
                return InitProducerIdResult(ErrorCode.UNKNOWN_SERVER_ERROR)
            rotate = needs_rotation(txn, expected)
            if rotate and rotation_pid is None:
                # Allocating may wait on disk; everything above is checked again afterwards.
                rotation_pid = await self.producer_ids.generate()
                if self.state.get(transactional_id) is not txn:
                    return InitProducerIdResult(ErrorCode.CONCURRENT_TRANSACTIONS)
                continue
            break

        try:
            transit = prepare_new_producer(
                txn, expected, transaction_timeout_ms, self.clock.now_ms(), rotation_pid if rotate else None
            )
        except TxnError as exc:
            if created is not None:
                self.state.discard(created)
            return InitProducerIdResult(exc.error_code)
        fresh = created

        def forget_unwritten(err: int) -> None:
            if err and fresh is not None and not fresh.persisted:
                self.state.discard(fresh)

        err = await self.state.write(txn, transit, then=forget_unwritten)
        if err:
            return InitProducerIdResult(err)
        return InitProducerIdResult(ErrorCode.NONE, txn.producer_id, txn.producer_epoch)

    async def _keep_prepared(self, txn: TransactionMetadata) -> InitProducerIdResult:
        """KIP-939: the new instance gets the next epoch and the id and epoch of the prepared
        transaction it now owns; it commits or aborts that transaction with EndTxn."""
        ongoing_pid, ongoing_epoch = txn.producer_id, txn.producer_epoch
        try:
            transit = txn.prepare_keep_prepared(self.clock.now_ms())
        except TxnError as exc:
            return InitProducerIdResult(exc.error_code)
        err = await self.state.write(txn, transit)
        if err:
            return InitProducerIdResult(err)
        return InitProducerIdResult(
            ErrorCode.NONE, transit.producer_id, transit.producer_epoch, ongoing_pid, ongoing_epoch
        )
