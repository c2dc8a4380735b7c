"""KIP-890: a transactional batch that would open a transaction at a partition is first
checked with the transaction coordinator (part 1), or, transaction version 2, adds the
partition to the transaction itself (part 2). The answers are translated for the producer
as Kafka's AddPartitionsToTxnManager does.

A producer's batches wait behind one being verified, so that they reach the log in the
order sent: Kafka's per-producer ordering of pipelined requests."""

from __future__ import annotations

import asyncio
import weakref

from broker.dataplane.types import TopicPartition, TransactionSupportedOperation, TransactionVerifier
from protocol import record_batch as rb
from protocol.errors import ErrorCode

# Coordinator answers a producer retries, all answered NOT_ENOUGH_REPLICAS (Kafka's
# AddPartitionsToTxnManager).
_RETRIABLE = frozenset(
    {
        ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        ErrorCode.NOT_COORDINATOR,
        ErrorCode.NETWORK_EXCEPTION,
        ErrorCode.CONCURRENT_TRANSACTIONS,
    }
)


class ProducerOrder:
    """One lock per transactional id while one of its batches is being verified (dropped
    when unused)."""

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, transactional_id: str | None) -> asyncio.Lock:
        key = transactional_id or ""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock


async def verify(
    transactions: TransactionVerifier,
    transactional_id: str | None,
    header: rb.BatchHeader,
    tp: TopicPartition,
    operation: TransactionSupportedOperation,
) -> ErrorCode:
    """ErrorCode.NONE when the batch may be appended."""
    if transactional_id is None:
        return ErrorCode.NOT_ENOUGH_REPLICAS
    if operation is TransactionSupportedOperation.ADD_PARTITION:
        # Transaction version 2: add the partition to the producer's transaction (starting
        # one if needed). A producer of an earlier epoch, such as a late Produce of a
        # transaction already ended (KAFKA-17754), is fenced here.
        code = await transactions.add_partitions(
            transactional_id, header.producer_id, header.producer_epoch, [tp], client_transaction_version=2
        )
    else:
        # Is this partition part of the producer's ongoing transaction (once its add is durable)?
        result = await transactions.verify_when_settled(
            transactional_id, header.producer_id, header.producer_epoch, [tp]
        )
        code = result.get(tp, ErrorCode.NONE)
    return for_producer(ErrorCode(code), operation)


def for_producer(code: ErrorCode, operation: TransactionSupportedOperation) -> ErrorCode:
    """A coordinator answer translated for the producer, as Kafka's AddPartitionsToTxnManager."""
    if code == ErrorCode.TRANSACTION_ABORTABLE and operation is TransactionSupportedOperation.DEFAULT_ERROR:
        return ErrorCode.INVALID_TXN_STATE
    if code == ErrorCode.PRODUCER_FENCED:
        return ErrorCode.INVALID_PRODUCER_EPOCH
    if code in _RETRIABLE:
        return ErrorCode.NOT_ENOUGH_REPLICAS
    return code
