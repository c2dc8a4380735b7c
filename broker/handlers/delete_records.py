"""DeleteRecords: advance partitions' log start offsets (the low watermark)."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from broker.topic_names import is_internal
from protocol.errors import ErrorCode
from protocol.messages.delete_records_request import DeleteRecordsPartition, DeleteRecordsRequest
from protocol.messages.delete_records_response import (
    DeleteRecordsPartitionResult,
    DeleteRecordsResponse,
    DeleteRecordsTopicResult,
)
from storage.errors import StorageError

API_KEY = 21

HIGH_WATERMARK = -1
INVALID_LOW_WATERMARK = -1


async def _delete(
    ctx: RequestContext, topic: str, partition: DeleteRecordsPartition
) -> DeleteRecordsPartitionResult:
    result = DeleteRecordsPartitionResult(
        partition_index=partition.partition_index, low_watermark=INVALID_LOW_WATERMARK
    )
    if not allowed(ctx, AclOperation.DELETE, ResourceType.TOPIC, topic):
        result.error_code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
        return result
    if is_internal(topic):
        result.error_code = ErrorCode.INVALID_TOPIC_EXCEPTION
        return result
    try:
        log = ctx.services.storage.log(topic, partition.partition_index)
        config = ctx.services.storage.describe_topic(topic).config
        if config.compact and not config.delete:
            # Deleting a prefix would break compaction's per-key guarantee.
            result.error_code = ErrorCode.POLICY_VIOLATION
            return result
        if partition.offset < HIGH_WATERMARK:
            result.error_code = ErrorCode.OFFSET_OUT_OF_RANGE
            return result
        result.low_watermark = await log.delete_records_before(partition.offset)
    except StorageError as exc:
        result.error_code = exc.error_code
    return result


async def handle(ctx: RequestContext, request: DeleteRecordsRequest) -> DeleteRecordsResponse:
    topics = []
    for topic in request.topics:
        partitions = [await _delete(ctx, topic.name, p) for p in topic.partitions]
        topics.append(DeleteRecordsTopicResult(name=topic.name, partitions=partitions))
    return DeleteRecordsResponse(topics=topics)
