"""What the data plane is asked and what it answers, and the transaction coordinator calls
it makes (KIP-890 verification)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from protocol.errors import ErrorCode
from storage.engine import AbortedTransaction, AppendResult, TopicInfo

TopicPartition = tuple[str, int]


class TransactionVerifier(Protocol):
    """The transaction coordinator's calls a Produce makes (TransactionCoordinator)."""

    def defers_data_durability(self, transactional_id: str | None) -> bool: ...

    async def verify_when_settled(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
    ) -> dict[TopicPartition, int]: ...

    async def add_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
        client_transaction_version: int | None = None,
        *,
        answer_before_durable: bool = False,
    ) -> int: ...


class LeadershipCheck(Protocol):
    """Cluster mode: whether this broker serves a partition (storage/postgres/cluster/leadership.py)."""

    def check(self, key: tuple[uuid.UUID, int], current_leader_epoch: int = -1) -> ErrorCode: ...

    def served_epoch(self, key: tuple[uuid.UUID, int]) -> int: ...


class TransactionSupportedOperation(Enum):
    """What a Produce's version lets the data plane do about a transaction, as Kafka's
    TransactionSupportedOperation."""

    DEFAULT_ERROR = "default"  # TRANSACTION_ABORTABLE is answered INVALID_TXN_STATE
    GENERIC_ERROR_SUPPORTED = "generic"  # the producer knows TRANSACTION_ABORTABLE
    ADD_PARTITION = "add"  # transaction version 2: the Produce adds its partitions itself


@dataclass(frozen=True, slots=True)
class AppendEntry:
    """One partition's records of a Produce, the topic already resolved and authorised."""

    topic: str
    partition: int
    records: bytes | bytearray | memoryview


@dataclass(frozen=True, slots=True)
class PartitionAppend:
    """The outcome of one AppendEntry: `result` when written, else the error."""

    error: ErrorCode = ErrorCode.NONE
    result: AppendResult | None = None
    message: str | None = None
    # KIP-467: which records of a refused batch were at fault, and why.
    record_errors: list[tuple[int, str | None]] = field(default_factory=list)
    # The partition's log was not found (the topic was deleted since it was resolved).
    log_missing: bool = False


@dataclass(frozen=True, slots=True)
class FetchTarget:
    """One partition of a Fetch: `error` set when the handler already refused it (not
    authorised, unknown), else read from `topic`'s log."""

    topic: TopicInfo | None
    partition: int
    fetch_offset: int
    max_bytes: int
    error: ErrorCode | None = None
    # Fetch v9+ (KIP-320): checked against the leader's epoch in cluster mode.
    current_leader_epoch: int = -1


@dataclass(slots=True)
class FetchPartitionData:
    """What a Fetch answers for one partition (Kafka's FetchPartitionData); a partition
    answered with an error carries no offsets (Kafka's -1s)."""

    error: int = ErrorCode.NONE
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1
    records: bytes | memoryview = b""
    # READ_COMMITTED only: the aborted transactions of the range returned.
    aborted_transactions: list[AbortedTransaction] | None = None
