"""OffsetForLeaderEpoch (KIP-101, KIP-320): the end offset of a leader epoch, which a
consumer uses to validate its position after the partition's leader epoch changed.

This broker has always led every partition in epoch `LEADER_EPOCH` (every batch carries
it), so a partition's leader epoch cache, as Kafka's `LeaderEpochFileCache` would hold it,
is one entry: that epoch, starting at the log start offset. The lookup below is that
class's `endOffsetFor` over such a cache; the epoch check is `Partition`'s
`checkCurrentLeaderEpoch`. In a cluster (docs/cluster.md) both come from the partition's
real leader epochs, kept in PostgreSQL."""

from __future__ import annotations

from broker.context import RequestContext
from broker.handlers.metadata import LEADER_EPOCH
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from protocol.errors import ErrorCode
from protocol.messages.offset_for_leader_epoch_request import (
    OffsetForLeaderEpochRequest,
    OffsetForLeaderPartition,
)
from protocol.messages.offset_for_leader_epoch_response import (
    EpochEndOffset,
    OffsetForLeaderEpochResponse,
    OffsetForLeaderTopicResult,
)
from storage.errors import StorageError

API_KEY = 23
UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1
# A consumer that does not know the current leader epoch sends this (no fencing check).
NO_PARTITION_LEADER_EPOCH = -1


def end_offset_for(
    requested_epoch: int, epochs: list[tuple[int, int]], log_end_offset: int
) -> tuple[int, int]:
    """(epoch, end offset) of `requested_epoch` in a cache of (epoch, start offset) entries,
    ascending: the latest epoch ends at the log end, an earlier one where the next starts;
    an epoch above every entry is unknown (UNDEFINED), as in `LeaderEpochFileCache`."""
    if requested_epoch == UNDEFINED_EPOCH or not epochs:
        return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
    if epochs[-1][0] == requested_epoch:
        return requested_epoch, log_end_offset
    higher = next(((e, start) for e, start in epochs if e > requested_epoch), None)
    if higher is None:
        return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
    floor = [e for e, _ in epochs if e <= requested_epoch]
    # Below every known epoch Kafka answers the requested epoch itself, ending where the
    # first known one starts.
    return (floor[-1] if floor else requested_epoch), higher[1]


def _check_current_epoch(current: int) -> ErrorCode:
    if current == NO_PARTITION_LEADER_EPOCH:
        return ErrorCode.NONE
    if current < LEADER_EPOCH:
        return ErrorCode.FENCED_LEADER_EPOCH
    if current > LEADER_EPOCH:
        return ErrorCode.UNKNOWN_LEADER_EPOCH
    return ErrorCode.NONE


def _answer(ctx: RequestContext, topic: str, p: OffsetForLeaderPartition) -> EpochEndOffset:
    if not allowed(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic):
        return EpochEndOffset(partition=p.partition, error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED)
    try:
        log = ctx.topics.log(topic, p.partition)
    except StorageError as exc:
        return EpochEndOffset(partition=p.partition, error_code=exc.error_code)
    topic_id = ctx.topics.describe_topic(topic).topic_id
    cluster_error = ctx.cluster.leader_epoch_error(topic_id, p.partition, p.current_leader_epoch)
    error = _check_current_epoch(p.current_leader_epoch) if cluster_error is None else cluster_error
    if error != ErrorCode.NONE:
        return EpochEndOffset(partition=p.partition, error_code=error)
    # Cluster mode: the partition's real epoch history (storage/postgres/cluster/).
    epochs = ctx.cluster.leader_epochs(topic_id, p.partition) or [(LEADER_EPOCH, log.log_start_offset)]
    epoch, end = end_offset_for(p.leader_epoch, epochs, log.log_end_offset)
    return EpochEndOffset(partition=p.partition, error_code=ErrorCode.NONE, leader_epoch=epoch, end_offset=end)


async def handle(ctx: RequestContext, request: OffsetForLeaderEpochRequest) -> OffsetForLeaderEpochResponse:
    return OffsetForLeaderEpochResponse(
        topics=[
            OffsetForLeaderTopicResult(topic=t.topic, partitions=[_answer(ctx, t.topic, p) for p in t.partitions])
            for t in request.topics
        ]
    )
