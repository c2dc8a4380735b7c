"""Hook for producer-state checks on the append path (idempotence, transactions).

Today's implementation accepts everything. A later change will track per-producer
sequence numbers and epochs (OUT_OF_ORDER_SEQUENCE, INVALID_PRODUCER_EPOCH,
duplicate detection), ongoing transactions for the last stable offset, and aborted
transactions in the segment's `.txnindex` file.
"""

from __future__ import annotations

from typing import Protocol

from protocol.record_batch import BatchHeader

from .engine import AbortedTransaction, AppendOrigin, AppendResult


class ProducerStateHook(Protocol):
    def before_append(self, header: BatchHeader, origin: AppendOrigin) -> AppendResult | None:
        """Check the batch before it is written: raise a StorageError to reject it, or return
        the AppendResult of an earlier identical batch to acknowledge a retried duplicate
        without writing it again. `header` still carries the producer's offsets."""
        ...

    def after_append(self, header: BatchHeader, origin: AppendOrigin) -> None:
        """Called once the batch is in the log; `header` carries the assigned offsets."""
        ...

    def first_unstable_offset(self) -> int | None:
        """Offset of the first record of the oldest open transaction, if any."""
        ...

    def aborted_transactions(self, start_offset: int, end_offset: int) -> list[AbortedTransaction]:
        ...

    def truncate(self, log_start_offset: int, log_end_offset: int) -> None:
        """Forget state outside the log after retention, DeleteRecords or recovery."""
        ...


class NoProducerState:
    """Accept every batch; no transactions are tracked yet."""

    def before_append(self, header: BatchHeader, origin: AppendOrigin) -> AppendResult | None:
        return None

    def after_append(self, header: BatchHeader, origin: AppendOrigin) -> None:
        pass

    def first_unstable_offset(self) -> int | None:
        return None

    def aborted_transactions(self, start_offset: int, end_offset: int) -> list[AbortedTransaction]:
        return []

    def truncate(self, log_start_offset: int, log_end_offset: int) -> None:
        pass
