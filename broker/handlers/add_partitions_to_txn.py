"""AddPartitionsToTxn: v0-v3 from producers (one transaction); v4-v5 the batched form a
partition leader sends, whose `verify_only` transactions are KIP-890 verification (is each
partition in the ongoing transaction?) and whose other transactions are the implicit add of
a Produce v12+, so they start a transaction of version 2 (Kafka's
`TransactionVersion.transactionVersionForAddPartitionsToTxn`)."""

from __future__ import annotations

from broker.context import RequestContext
from broker.ports import Transactions
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed, cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.add_partitions_to_txn_request import AddPartitionsToTxnRequest, AddPartitionsToTxnTopic
from protocol.messages.add_partitions_to_txn_response import (
    AddPartitionsToTxnPartitionResult,
    AddPartitionsToTxnResponse,
    AddPartitionsToTxnResult,
    AddPartitionsToTxnTopicResult,
)
from storage.errors import UnknownTopicOrPartitionError
from storage.topic_partition import TopicPartition

API_KEY = 24
PRODUCER_FENCED_MIN_VERSION = 2
BATCHED_MIN_VERSION = 4
TRANSACTION_ABORTABLE_MIN_VERSION = 5


def _partitions(topics: list[AddPartitionsToTxnTopic]) -> list[TopicPartition]:
    return [(t.name, p) for t in topics for p in t.partitions]


def _results(errors: dict[TopicPartition, int]) -> list[AddPartitionsToTxnTopicResult]:
    by_topic: dict[str, list[AddPartitionsToTxnPartitionResult]] = {}
    for (topic, partition), error in errors.items():
        by_topic.setdefault(topic, []).append(
            AddPartitionsToTxnPartitionResult(partition_index=partition, partition_error_code=error)
        )
    return [AddPartitionsToTxnTopicResult(name=t, results_by_partition=rs) for t, rs in by_topic.items()]


def _missing(ctx: RequestContext, partitions: list[TopicPartition]) -> set[TopicPartition]:
    missing: set[TopicPartition] = set()
    sizes: dict[str, int] = {}
    for topic, partition in partitions:
        if topic not in sizes:
            try:
                sizes[topic] = ctx.topics.describe_topic(topic).num_partitions
            except UnknownTopicOrPartitionError:
                sizes[topic] = 0
        if not 0 <= partition < sizes[topic]:
            missing.add((topic, partition))
    return missing


async def _add(
    ctx: RequestContext,
    coordinator: Transactions,
    transactional_id: str,
    producer_id: int,
    producer_epoch: int,
    partitions: list[TopicPartition],
    client_transaction_version: int | None = None,
) -> dict[TopicPartition, int]:
    # A producer's own request (v0-v3) is answered before its record is durable: the
    # Produce that follows waits for it (TransactionCoordinator.verify_when_settled). The
    # implicit add of a Produce v12+ is followed by that Produce's append at once.
    early = client_transaction_version is None
    if not allowed(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactional_id):
        return dict.fromkeys(partitions, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    denied = {t for t, _ in partitions if not allowed(ctx, AclOperation.WRITE, ResourceType.TOPIC, t)}
    missing = _missing(ctx, [tp for tp in partitions if tp[0] not in denied])
    if missing or denied:
        # Nothing is added when any partition is refused; the others were not attempted.
        return {
            tp: ErrorCode.TOPIC_AUTHORIZATION_FAILED if tp[0] in denied
            else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION if tp in missing
            else ErrorCode.OPERATION_NOT_ATTEMPTED
            for tp in partitions
        }
    error = await coordinator.add_partitions(
        transactional_id, producer_id, producer_epoch, partitions, client_transaction_version,
        answer_before_durable=early,
    )
    if error == ErrorCode.PRODUCER_FENCED and ctx.api_version < PRODUCER_FENCED_MIN_VERSION:
        error = ErrorCode.INVALID_PRODUCER_EPOCH
    return dict.fromkeys(partitions, error)


async def handle(ctx: RequestContext, request: AddPartitionsToTxnRequest) -> AddPartitionsToTxnResponse:
    coordinator = ctx.transactions
    version = ctx.api_version
    if version < BATCHED_MIN_VERSION:
        partitions = _partitions(request.v3_and_below_topics)
        errors = await _add(
            ctx,
            coordinator,
            request.v3_and_below_transactional_id,
            request.v3_and_below_producer_id,
            request.v3_and_below_producer_epoch,
            partitions,
        )
        return AddPartitionsToTxnResponse(results_by_topic_v3_and_below=_results(errors))

    # The batched form is for brokers only (KafkaApis: CLUSTER_ACTION on the cluster).
    if not cluster_allowed(ctx, AclOperation.CLUSTER_ACTION):
        return AddPartitionsToTxnResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    results: list[AddPartitionsToTxnResult] = []
    for txn in request.transactions:
        partitions = _partitions(txn.topics)
        if txn.verify_only:
            errors = await coordinator.verify_when_settled(
                txn.transactional_id, txn.producer_id, txn.producer_epoch, partitions
            )
            if version < TRANSACTION_ABORTABLE_MIN_VERSION:
                errors = {
                    tp: ErrorCode.INVALID_TXN_STATE if e == ErrorCode.TRANSACTION_ABORTABLE else e
                    for tp, e in errors.items()
                }
        else:
            errors = await _add(
                ctx, coordinator, txn.transactional_id, txn.producer_id, txn.producer_epoch, partitions, 2
            )
        results.append(
            AddPartitionsToTxnResult(transactional_id=txn.transactional_id, topic_results=_results(errors))
        )
    return AddPartitionsToTxnResponse(results_by_transaction=results)
