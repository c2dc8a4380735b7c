"""DescribeShareGroupOffsets, AlterShareGroupOffsets and DeleteShareGroupOffsets (KIP-932):
the start offsets of a share group's share partitions, as `__share_group_state` holds them;
altered or deleted only while the group has no members, as Kafka allows."""

from __future__ import annotations

import uuid

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from broker.share_support import LATEST_TIMESTAMP, share_groups_enabled, share_key
from broker.topics import TopicResolver
from coordinator.log import CoordinatorLogError
from coordinator.share.coordinator import SHARE_STATE
from coordinator.share.record_state import RecordState
from protocol.errors import ErrorCode
from protocol.messages.alter_share_group_offsets_request import AlterShareGroupOffsetsRequest
from protocol.messages.alter_share_group_offsets_response import (
    AlterShareGroupOffsetsResponse,
    AlterShareGroupOffsetsResponsePartition,
    AlterShareGroupOffsetsResponseTopic,
)
from protocol.messages.delete_share_group_offsets_request import DeleteShareGroupOffsetsRequest
from protocol.messages.delete_share_group_offsets_response import (
    DeleteShareGroupOffsetsResponse,
    DeleteShareGroupOffsetsResponseTopic,
)
from protocol.messages.describe_share_group_offsets_request import DescribeShareGroupOffsetsRequest
from protocol.messages.describe_share_group_offsets_response import (
    DescribeShareGroupOffsetsResponse,
    DescribeShareGroupOffsetsResponseGroup,
    DescribeShareGroupOffsetsResponsePartition,
    DescribeShareGroupOffsetsResponseTopic,
)

DESCRIBE_API_KEY = 90
ALTER_API_KEY = 91
DELETE_API_KEY = 92
# v1 reports the lag (KIP-1226).
LAG_MIN_VERSION = 1
UNKNOWN = -1


async def describe(ctx: RequestContext, request: DescribeShareGroupOffsetsRequest) -> DescribeShareGroupOffsetsResponse:
    groups = []
    for g in request.groups:
        out = DescribeShareGroupOffsetsResponseGroup(group_id=g.group_id)
        groups.append(out)
        if not share_groups_enabled(ctx):
            out.error_code = ErrorCode.UNSUPPORTED_VERSION
            continue
        if not allowed(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, g.group_id):
            out.error_code = ErrorCode.GROUP_AUTHORIZATION_FAILED
            continue
        share = ctx.share
        if not share.is_share_group(g.group_id):
            out.error_code = ErrorCode.GROUP_ID_NOT_FOUND
            out.error_message = f"Group {g.group_id} is not a share group."
            continue
        resolver = TopicResolver(ctx)
        wanted: list[tuple[str, list[int]]]
        if g.topics is None:
            # Every topic the group has state for.
            by_topic: dict[uuid.UUID, list[int]] = {}
            for key in sorted(share.store.states, key=lambda k: (str(k.topic_id), k.partition)):
                if key.group_id == g.group_id:
                    by_topic.setdefault(key.topic_id, []).append(key.partition)
            wanted = []
            for tid, ps in by_topic.items():
                info = resolver.find_by_id(tid)
                if info is not None:
                    wanted.append((info.name, ps))
        else:
            wanted = [(t.topic_name, list(t.partitions)) for t in g.topics]
        for name, partitions in wanted:
            info = resolver.find(name)
            topic = DescribeShareGroupOffsetsResponseTopic(topic_name=name,
                                                           topic_id=info.topic_id if info else uuid.UUID(int=0))
            out.topics.append(topic)
            for index in partitions:
                part = DescribeShareGroupOffsetsResponsePartition(partition_index=index, start_offset=UNKNOWN,
                                                                  leader_epoch=UNKNOWN, lag=UNKNOWN)
                topic.partitions.append(part)
                if not allowed(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, name):
                    part.error_code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
                    continue
                if info is None or not 0 <= index < info.num_partitions:
                    part.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                    continue
                state = share.store.states.get(share_key(g.group_id, info.topic_id, index))
                if state is None:
                    continue
                part.start_offset = state.start_offset
                part.leader_epoch = state.leader_epoch
                if ctx.api_version >= LAG_MIN_VERSION:
                    found, _ = await ctx.data_plane.offset_for_timestamp(name, index, LATEST_TIMESTAMP, None)
                    if found is not None:
                        done = sum(b.last_offset - b.first_offset + 1 for b in state.batches
                                   if b.state in (RecordState.ACKNOWLEDGED, RecordState.ARCHIVED))
                        part.lag = max(found.offset - state.start_offset - done, 0)
    return DescribeShareGroupOffsetsResponse(groups=groups)


async def alter(ctx: RequestContext, request: AlterShareGroupOffsetsRequest) -> AlterShareGroupOffsetsResponse:
    if not share_groups_enabled(ctx):
        return AlterShareGroupOffsetsResponse(error_code=ErrorCode.UNSUPPORTED_VERSION)
    if not allowed(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return AlterShareGroupOffsetsResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    share = ctx.share
    if request.group_id in ctx.groups.rt.groups or request.group_id in ctx.groups.rt.consumer_groups:
        return AlterShareGroupOffsetsResponse(error_code=ErrorCode.GROUP_ID_NOT_FOUND,
                                              error_message=f"Group {request.group_id} is not a share group.")
    if share.group_state(request.group_id).value != "Empty":
        return AlterShareGroupOffsetsResponse(error_code=ErrorCode.NON_EMPTY_GROUP,
                                              error_message="The share group has members.")
    resolver = TopicResolver(ctx)
    responses = []
    for t in request.topics:
        info = resolver.find(t.topic_name)
        topic = AlterShareGroupOffsetsResponseTopic(topic_name=t.topic_name,
                                                    topic_id=info.topic_id if info else uuid.UUID(int=0))
        responses.append(topic)
        for p in t.partitions:
            error = ErrorCode.NONE
            if not allowed(ctx, AclOperation.READ, ResourceType.TOPIC, t.topic_name):
                error = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            elif info is None or not 0 <= p.partition_index < info.num_partitions:
                error = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            elif p.start_offset < 0:
                error = ErrorCode.INVALID_REQUEST
            else:
                try:
                    await share.partitions.reset(share_key(request.group_id, info.topic_id, p.partition_index),
                                                 p.start_offset)
                except CoordinatorLogError as exc:
                    error = exc.client_error(SHARE_STATE)
            topic.partitions.append(AlterShareGroupOffsetsResponsePartition(partition_index=p.partition_index,
                                                                           error_code=error))
    return AlterShareGroupOffsetsResponse(responses=responses)


async def delete(ctx: RequestContext, request: DeleteShareGroupOffsetsRequest) -> DeleteShareGroupOffsetsResponse:
    if not share_groups_enabled(ctx):
        return DeleteShareGroupOffsetsResponse(error_code=ErrorCode.UNSUPPORTED_VERSION)
    if not allowed(ctx, AclOperation.DELETE, ResourceType.GROUP, request.group_id):
        return DeleteShareGroupOffsetsResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    share = ctx.share
    if not share.is_share_group(request.group_id):
        return DeleteShareGroupOffsetsResponse(error_code=ErrorCode.GROUP_ID_NOT_FOUND,
                                               error_message=f"Group {request.group_id} is not a share group.")
    if share.group_state(request.group_id).value != "Empty":
        return DeleteShareGroupOffsetsResponse(error_code=ErrorCode.NON_EMPTY_GROUP,
                                               error_message="The share group has members.")
    resolver = TopicResolver(ctx)
    responses = []
    for t in request.topics:
        info = resolver.find(t.topic_name)
        out = DeleteShareGroupOffsetsResponseTopic(topic_name=t.topic_name,
                                                   topic_id=info.topic_id if info else uuid.UUID(int=0))
        responses.append(out)
        if not allowed(ctx, AclOperation.READ, ResourceType.TOPIC, t.topic_name):
            out.error_code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            continue
        if info is None:
            out.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            continue
        keys = {k for k in share.store.states if k.group_id == request.group_id and k.topic_id == info.topic_id}
        keys |= {k for k in share.partitions.partitions
                 if k.group_id == request.group_id and k.topic_id == info.topic_id}
        try:
            for key in keys:
                await share.partitions.delete(key)
        except CoordinatorLogError as exc:
            out.error_code = exc.client_error(SHARE_STATE)
    return DeleteShareGroupOffsetsResponse(responses=responses)
