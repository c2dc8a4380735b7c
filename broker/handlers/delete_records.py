"""DeleteRecords: advance partitions' log start offsets (the low watermark); the data plane
(broker/dataplane/replica_manager.py) moves them, this handler checks DELETE on the topics."""

from __future__ import annotations

import asyncio

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from protocol.errors import ErrorCode
from protocol.messages.delete_records_request import DeleteRecordsPartition, DeleteRecordsRequest
from protocol.messages.delete_records_response import (
    DeleteRecordsPartitionResult,
    DeleteRecordsResponse,
    DeleteRecordsTopicResult,
)

API_KEY = 21

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
    result.low_watermark, result.error_code = await ctx.data_plane.delete_records(
        topic, partition.partition_index, partition.offset
    )
    return result


async def handle(ctx: RequestContext, request: DeleteRecordsRequest) -> DeleteRecordsResponse:
    # All at once: each is answered once its log start is durable (a PostgreSQL round), so
    # the partitions share rounds rather than wait for one each in turn.
    results = iter(await asyncio.gather(
        *(_delete(ctx, topic.name, p) for topic in request.topics for p in topic.partitions)
    ))
    topics = [
        DeleteRecordsTopicResult(name=topic.name, partitions=[next(results) for _ in topic.partitions])
        for topic in request.topics
    ]
    return DeleteRecordsResponse(topics=topics)
