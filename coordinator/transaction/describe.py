"""DescribeTransactions and ListTransactions (KIP-664) over the coordinator's metadata."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from coordinator.transaction.metadata import TransactionMetadata
from coordinator.transaction.state import TransactionState
from protocol.errors import ErrorCode
from storage.topic_partition import TopicPartition


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


def describe(txn: TransactionMetadata) -> TransactionDescription:
    return TransactionDescription(
        transactional_id=txn.transactional_id,
        state=txn.state,
        timeout_ms=txn.timeout_ms,
        start_timestamp=txn.start_timestamp,
        producer_id=txn.producer_id,
        producer_epoch=txn.producer_epoch,
        partitions=frozenset(txn.partitions),
    )


def is_described(txn: TransactionMetadata | None) -> bool:
    """Whether DescribeTransactions finds the id (not expired, nor being expired)."""
    dead = TransactionState.DEAD
    return txn is not None and txn.state is not dead and txn.pending_state is not dead


def list_transactions(
    txns: Iterable[TransactionMetadata],
    now_ms: int,
    state_filters: Iterable[str] = (),
    producer_id_filters: Iterable[int] = (),
    duration_filter_ms: int = -1,
    transactional_id_pattern: str | None = None,
) -> ListTransactionsResult:
    result = ListTransactionsResult()
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
    for txn in txns:
        if txn.state is TransactionState.DEAD:
            continue
        if pids and txn.producer_id not in pids:
            continue
        if state_names and txn.state not in states:
            continue
        if duration_filter_ms >= 0 and now_ms - txn.start_timestamp <= duration_filter_ms:
            continue
        if pattern is not None and not pattern.fullmatch(txn.transactional_id):
            continue
        result.transactions.append(describe(txn))
    return result
