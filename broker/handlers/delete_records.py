"""DeleteRecords: advance partitions' log start offsets (the low watermark); the data plane
(broker/dataplane/replica_manager.py) moves them, this handler checks DELETE on the topics."""

from __future__ import annotations

import asyncio

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from protocol.errors import ErrorCode
from protocol.messages.delete_records_request import DeleteRecordsRequest
from protocol.messages.delete_records_response import (
    DeleteRecordsPartitionResult,
    DeleteRecordsResponse,
    DeleteRecordsTopicResult,
)

API_KEY = 21

INVALID_LOW_WATERMARK = -1


async def _delete(ctx: RequestContext, topic: str, partition: int, offset: int) -> DeleteRecordsPartitionResult:
    result = DeleteRecordsPartitionResult(partition_index=partition, low_watermark=INVALID_LOW_WATERMARK)
    if not allowed(ctx, AclOperation.DELETE, ResourceType.TOPIC, topic):
        result.error_code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
        return result
    result.low_watermark, result.error_code = await ctx.data_plane.delete_records(topic, partition, offset)
    return result


async def handle(ctx: RequestContext, request: DeleteRecordsRequest) -> DeleteRecordsResponse:
    # Kafka's KafkaApis.handleDeleteRecordsRequest keys the request by TopicPartition: a
    # partition named twice is deleted and answered once, at the offset named last, and a
    # topic named twice is answered as one (the order is a hash map's there: clients match
    # results by name and index; here, each one's first mention).
    offsets: dict[str, dict[int, int]] = {}
    for topic in request.topics:
        of_topic = offsets.setdefault(topic.name, {})
        for p in topic.partitions:
            of_topic[p.partition_index] = p.offset
    # All at once: each is answered once its log start is durable (a PostgreSQL round), so
    # the partitions share rounds rather than wait for one each in turn.
    results = iter(await asyncio.gather(
        *(_delete(ctx, name, index, offset) for name, of_topic in offsets.items() for index, offset in of_topic.items())
    ))
    topics = [
        DeleteRecordsTopicResult(name=name, partitions=[next(results) for _ in of_topic])
        for name, of_topic in offsets.items()
    ]
    return DeleteRecordsResponse(topics=topics)
