"""DescribeTopicPartitions (KIP-966): topics and their partitions, paged so that one
response never holds more than a limit of partitions.

As Kafka's `DescribeTopicPartitionsRequestHandler` and `KRaftMetadataCache.describeTopicResponse`:
the topics asked for (every topic when none are named) from the cursor on, by name; the
limit is the request's, capped by `max.request.partition.size.limit`; when it runs out
inside a topic, or just before the next one, `NextCursor` says where to go on."""

from __future__ import annotations

from broker.authorized_operations import ResourceType, authorized_operations
from broker.context import RequestContext
from broker.ports import Cluster
from broker.security.acl.model import AclOperation
from broker.security.authorization import allowed
from protocol.codec import ZERO_UUID
from protocol.errors import ErrorCode
from protocol.messages.describe_topic_partitions_request import DescribeTopicPartitionsRequest
from protocol.messages.describe_topic_partitions_response import (
    Cursor,
    DescribeTopicPartitionsResponse,
    DescribeTopicPartitionsResponsePartition,
    DescribeTopicPartitionsResponseTopic,
)
from storage.catalog import INTERNAL_TOPICS, validate_topic_name
from storage.engine import TopicInfo
from storage.errors import StorageError, UnknownTopicOrPartitionError

API_KEY = 75


def _partitions(info: TopicInfo, start: int, stop: int, cluster: Cluster) -> list[DescribeTopicPartitionsResponsePartition]:
    out = []
    for p in range(start, stop):
        leader, epoch = cluster.partition_leader(info.topic_id, p)
        replicas = [leader] if leader >= 0 else []
        out.append(
            DescribeTopicPartitionsResponsePartition(
                error_code=ErrorCode.NONE if leader >= 0 else ErrorCode.LEADER_NOT_AVAILABLE,
                partition_index=p,
                leader_id=leader,
                leader_epoch=epoch,
                replica_nodes=replicas,
                isr_nodes=list(replicas),
                # No eligible leader replicas (KIP-966's ELR) without a second replica.
                eligible_leader_replicas=[],
                last_known_elr=[],
                offline_replicas=[],
            )
        )
    return out


def _missing(name: str) -> DescribeTopicPartitionsResponseTopic:
    try:
        validate_topic_name(name)
        error = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    except StorageError:
        error = ErrorCode.INVALID_TOPIC_EXCEPTION
    return DescribeTopicPartitionsResponseTopic(
        error_code=error, name=name, topic_id=ZERO_UUID, is_internal=name in INTERNAL_TOPICS
    )


def _invalid(request: DescribeTopicPartitionsRequest) -> DescribeTopicPartitionsResponse:
    """Kafka fails the whole request: every topic named gets INVALID_REQUEST."""
    return DescribeTopicPartitionsResponse(
        topics=[
            DescribeTopicPartitionsResponseTopic(error_code=ErrorCode.INVALID_REQUEST, name=t.name, topic_id=ZERO_UUID)
            for t in request.topics
        ]
    )


async def handle(ctx: RequestContext, request: DescribeTopicPartitionsRequest) -> DescribeTopicPartitionsResponse:
    cursor = request.cursor
    cursor_topic = cursor.topic_name if cursor is not None else ""
    every_topic = not request.topics
    if every_topic:
        names = {t.name for t in ctx.topics.list_topics() if t.name >= cursor_topic}
    else:
        names = {t.name for t in request.topics if t.name >= cursor_topic}
        if cursor is not None and cursor.topic_name not in names:
            return _invalid(request)
    if cursor is not None and cursor.partition_index < 0:
        return _invalid(request)
    remaining = max(min(ctx.config.get_int("max.request.partition.size.limit"), request.response_partition_limit), 1)
    response = DescribeTopicPartitionsResponse(next_cursor=None)
    for name in sorted(names):
        if remaining == 0:
            # The previous topic used the last of the limit: go on at the start of this one.
            response.next_cursor = Cursor(topic_name=name, partition_index=0)
            break
        if not allowed(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, name):
            # Hidden as Metadata hides them: left out of "every topic", refused when named.
            if not every_topic:
                response.topics.append(DescribeTopicPartitionsResponseTopic(
                    error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED, name=name, topic_id=ZERO_UUID))
            continue
        try:
            info = ctx.topics.describe_topic(name)
        except UnknownTopicOrPartitionError:
            if not every_topic:
                response.topics.append(_missing(name))
            continue
        start = cursor.partition_index if cursor is not None and name == cursor.topic_name else 0
        stop = min(info.num_partitions, start + remaining)
        response.topics.append(
            DescribeTopicPartitionsResponseTopic(
                error_code=ErrorCode.NONE,
                name=name,
                topic_id=info.topic_id,
                is_internal=info.internal,
                partitions=_partitions(info, start, stop, ctx.cluster),
            )
        )
        if stop < info.num_partitions:
            response.next_cursor = Cursor(topic_name=name, partition_index=stop)
            break
        remaining -= max(0, stop - start)
    for topic in response.topics:
        topic.topic_authorized_operations = authorized_operations(
            ctx, ResourceType.TOPIC, topic.name or ""
        )
    return response
