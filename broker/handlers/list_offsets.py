"""ListOffsets: earliest, latest (the LSO under read_committed), by timestamp, max timestamp.

Latest, timestamp and max-timestamp answers stop at the last fetchable offset of the
request's isolation level (storage.log.Log.list_offset); the lookups are the data plane's
(broker/dataplane/replica_manager.py)."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from broker.topics import TopicResolver
from protocol.errors import ErrorCode
from protocol.messages.list_offsets_request import ListOffsetsRequest
from protocol.messages.list_offsets_response import (
    ListOffsetsPartitionResponse,
    ListOffsetsResponse,
    ListOffsetsTopicResponse,
)

API_KEY = 2
LEADER_EPOCH = 0
CONSUMER_REPLICA_ID = -1
# Special timestamps, and the version that introduced each (older versions refuse them).
MAX_TIMESTAMP, EARLIEST_LOCAL_TIMESTAMP, LATEST_TIERED_TIMESTAMP = -3, -4, -5
MIN_VERSION_FOR = {MAX_TIMESTAMP: 7, EARLIEST_LOCAL_TIMESTAMP: 8, LATEST_TIERED_TIMESTAMP: 9}


async def handle(ctx: RequestContext, request: ListOffsetsRequest) -> ListOffsetsResponse:
    resolver = TopicResolver(ctx)
    version = ctx.api_version
    # Only a consumer's request is bounded by its isolation level (v0-1 carry none and
    # read uncommitted); Kafka's KafkaApis gives other replica ids the log end offset.
    isolation_level = request.isolation_level if request.replica_id == CONSUMER_REPLICA_ID else None
    topics_out: list[ListOffsetsTopicResponse] = []
    for topic in request.topics:
        partitions_out: list[ListOffsetsPartitionResponse] = []
        topics_out.append(ListOffsetsTopicResponse(name=topic.name, partitions=partitions_out))
        info = resolver.find(topic.name)
        denied = not allowed(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic.name)
        for p in topic.partitions:
            out = ListOffsetsPartitionResponse(partition_index=p.partition_index)
            partitions_out.append(out)
            if denied:
                out.error_code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
                continue
            if info is None or not 0 <= p.partition_index < info.num_partitions:
                out.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                continue
            if version < MIN_VERSION_FOR.get(p.timestamp, 0):
                out.error_code = ErrorCode.UNSUPPORTED_VERSION
                continue
            found, code = await ctx.data_plane.offset_for_timestamp(
                info.name, p.partition_index, p.timestamp, isolation_level, p.current_leader_epoch
            )
            if code != ErrorCode.NONE:
                out.error_code = code
                continue
            if found is None:
                out.old_style_offsets = []
                continue
            out.offset = found.offset
            out.timestamp = found.timestamp
            out.leader_epoch = LEADER_EPOCH
            out.old_style_offsets = [found.offset]
    return ListOffsetsResponse(topics=topics_out)
