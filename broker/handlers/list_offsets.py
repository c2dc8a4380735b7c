"""ListOffsets: earliest, latest (the LSO under read_committed), by timestamp, max timestamp."""

from __future__ import annotations

from broker.context import RequestContext
from broker.topics import TopicResolver
from protocol.errors import ErrorCode
from protocol.messages.list_offsets_request import ListOffsetsRequest
from protocol.messages.list_offsets_response import (
    ListOffsetsPartitionResponse,
    ListOffsetsResponse,
    ListOffsetsTopicResponse,
)
from storage.errors import StorageError

API_KEY = 2
LEADER_EPOCH = 0
# Special timestamps, and the version that introduced each (older versions refuse them).
MAX_TIMESTAMP, EARLIEST_LOCAL_TIMESTAMP, LATEST_TIERED_TIMESTAMP = -3, -4, -5
MIN_VERSION_FOR = {MAX_TIMESTAMP: 7, EARLIEST_LOCAL_TIMESTAMP: 8, LATEST_TIERED_TIMESTAMP: 9}


async def handle(ctx: RequestContext, request: ListOffsetsRequest) -> ListOffsetsResponse:
    resolver = TopicResolver(ctx.services)
    version = ctx.api_version
    topics_out: list[ListOffsetsTopicResponse] = []
    for topic in request.topics:
        partitions_out: list[ListOffsetsPartitionResponse] = []
        topics_out.append(ListOffsetsTopicResponse(name=topic.name, partitions=partitions_out))
        info = resolver.find(topic.name)
        for p in topic.partitions:
            out = ListOffsetsPartitionResponse(partition_index=p.partition_index)
            partitions_out.append(out)
            if info is None or not 0 <= p.partition_index < info.num_partitions:
                out.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                continue
            if version < MIN_VERSION_FOR.get(p.timestamp, 0):
                out.error_code = ErrorCode.UNSUPPORTED_VERSION
                continue
            log = ctx.services.storage.log(info.name, p.partition_index)
            try:
                if p.timestamp == LATEST_TIERED_TIMESTAMP:
                    # Nothing is tiered: Kafka answers "no such offset".
                    found = None
                else:
                    found = await log.list_offset(p.timestamp, isolation_level=request.isolation_level)
            except StorageError as exc:
                out.error_code = exc.error_code
                continue
            if found is None:
                out.old_style_offsets = []
                continue
            out.offset = found.offset
            out.timestamp = found.timestamp
            out.leader_epoch = LEADER_EPOCH
            out.old_style_offsets = [found.offset]
    return ListOffsetsResponse(topics=topics_out)
