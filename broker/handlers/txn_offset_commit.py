"""TxnOffsetCommit: offsets committed inside a transaction.

Up to v4 (transaction version 1) the transaction must already hold the group's
`__consumer_offsets` partition (added by AddOffsetsToTxn); v5 (transaction version 2)
adds it to the transaction itself, as Produce v12+ does its partitions. The offsets are
appended there as a transactional batch and stay pending until the transaction's marker
decides them.
"""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import group_coordinator, unknown_partition
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from coordinator.group.api import CommitTxnOffsets
from coordinator.group.offsets import OffsetAndMetadata
from coordinator.group.records import OFFSETS_TOPIC
from protocol.errors import ErrorCode
from protocol.messages.txn_offset_commit_request import TxnOffsetCommitRequest
from protocol.messages.txn_offset_commit_response import (
    TxnOffsetCommitResponse,
    TxnOffsetCommitResponsePartition,
    TxnOffsetCommitResponseTopic,
)

API_KEY = 28
IMPLICIT_ADD_MIN_VERSION = 5
LEADER_EPOCH_MIN_VERSION = 2
# 0.11-2.0 clients do not retry COORDINATOR_LOAD_IN_PROGRESS here.
LOAD_IN_PROGRESS_MIN_VERSION = 2
GROUP_METADATA_MIN_VERSION = 3
TRANSACTION_ABORTABLE_MIN_VERSION = 4

# What the leader's verification answers become for the producer (Kafka's AddPartitionsToTxnManager),
# after the group coordinator's own translation (Kafka's GroupCoordinatorService).
_UNAVAILABLE = frozenset(
    {
        ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        ErrorCode.NOT_COORDINATOR,
        ErrorCode.CONCURRENT_TRANSACTIONS,
        ErrorCode.NETWORK_EXCEPTION,
    }
)


def verification_error(error: int, version: int) -> ErrorCode:
    """A transaction coordinator verdict on the offsets partition, as TxnOffsetCommit answers it."""
    if error == ErrorCode.NONE:
        return ErrorCode.NONE
    if error == ErrorCode.TRANSACTION_ABORTABLE:
        return (ErrorCode.TRANSACTION_ABORTABLE if version >= TRANSACTION_ABORTABLE_MIN_VERSION
                else ErrorCode.INVALID_TXN_STATE)
    if error == ErrorCode.PRODUCER_FENCED:
        return ErrorCode.INVALID_PRODUCER_EPOCH
    if error in _UNAVAILABLE:
        # NOT_ENOUGH_REPLICAS at the leader, which the group coordinator reports so.
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    return ErrorCode(error)


async def handle(ctx: RequestContext, request: TxnOffsetCommitRequest) -> TxnOffsetCommitResponse:
    v = ctx.api_version
    coordinator = group_coordinator(ctx)
    # The transactional id's coordinator may be another broker (KIP-890 verification).
    transactions = ctx.txn_verifier
    now = ctx.clock.now_ms()
    errors: dict[tuple[str, int], ErrorCode] = {}
    offsets: dict[tuple[str, int], OffsetAndMetadata] = {}
    # KafkaApis.handleTxnOffsetCommitRequest: WRITE on the transactional id, READ on the group,
    # then READ on each topic.
    refused: ErrorCode | None = None
    if not allowed(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id):
        refused = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    elif not allowed(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        refused = ErrorCode.GROUP_AUTHORIZATION_FAILED
    for topic in request.topics:
        topic_denied = refused is None and not allowed(ctx, AclOperation.READ, ResourceType.TOPIC, topic.name)
        for p in topic.partitions:
            tp = (topic.name, p.partition_index)
            if refused is not None:
                errors[tp] = refused
                continue
            if topic_denied:
                errors[tp] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
                continue
            if unknown_partition(ctx, topic.name, p.partition_index):
                errors[tp] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                continue
            offsets[tp] = OffsetAndMetadata(
                offset=p.committed_offset,
                leader_epoch=p.committed_leader_epoch if v >= LEADER_EPOCH_MIN_VERSION else -1,
                metadata=p.committed_metadata or "",
                commit_timestamp=now,
            )

    async def verify(partition: int) -> ErrorCode:
        tp = (OFFSETS_TOPIC, partition)
        if v >= IMPLICIT_ADD_MIN_VERSION:
            added = await transactions.add_partitions(
                request.transactional_id, request.producer_id, request.producer_epoch, [tp], client_transaction_version=2
            )
            return verification_error(added, v)
        verdict = await transactions.verify_when_settled(
            request.transactional_id, request.producer_id, request.producer_epoch, [tp]
        )
        return verification_error(verdict.get(tp, ErrorCode.UNKNOWN_SERVER_ERROR), v)

    if offsets:
        group_fields = v >= GROUP_METADATA_MIN_VERSION
        errors.update(await coordinator.commit_txn_offsets(CommitTxnOffsets(
            group_id=request.group_id,
            producer_id=request.producer_id,
            producer_epoch=request.producer_epoch,
            member_id=request.member_id if group_fields else "",
            group_instance_id=request.group_instance_id if group_fields else None,
            generation_id=request.generation_id if group_fields else -1,
            offsets=offsets,
        ), verify))
    if v < LOAD_IN_PROGRESS_MIN_VERSION:
        errors = {
            tp: ErrorCode.COORDINATOR_NOT_AVAILABLE if e == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS else e
            for tp, e in errors.items()
        }
    return TxnOffsetCommitResponse(
        topics=[
            TxnOffsetCommitResponseTopic(
                name=topic.name,
                partitions=[
                    TxnOffsetCommitResponsePartition(
                        partition_index=p.partition_index,
                        error_code=errors[(topic.name, p.partition_index)],
                    )
                    for p in topic.partitions
                ],
            )
            for topic in request.topics
        ]
    )
