"""DescribeShareGroupOffsets, AlterShareGroupOffsets and DeleteShareGroupOffsets (KIP-932):
the start offsets of a share group's share partitions, as `__share_group_state` holds them;
altered or deleted only while the group has no members, as Kafka allows. Each share
partition's state is with its share coordinator (the leader of the `__share_group_state`
partition its key hashes to), reached through the persister, local or over the wire
(ReadShareGroupStateSummary, InitializeShareGroupState, DeleteShareGroupState:
broker/share_persister.py), as Kafka's group coordinator calls its Persister."""

from __future__ import annotations

import asyncio
import uuid

from broker.context import RequestContext
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from broker.share_persister import ClusterSharePersister
from broker.share_support import LATEST_TIMESTAMP, share_groups_enabled, share_key
from broker.topics import TopicResolver
from coordinator.log import CoordinatorLogError
from coordinator.share.coordinator import SHARE_STATE
from coordinator.share.records import SharePartitionKey
from coordinator.share.state_store import ShareSummary, next_state_epoch
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
SUMMARIES_AT_ONCE = 16


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
        if (status := share.group_status(g.group_id)) is not None:  # another broker coordinates it
            out.error_code = status
            continue
        if not share.is_share_group(g.group_id):
            out.error_code = ErrorCode.GROUP_ID_NOT_FOUND
            out.error_message = f"Group {g.group_id} is not a share group."
            continue
        resolver = TopicResolver(ctx)
        persister = share.partitions.persister
        if g.topics is None:
            out.topics = await _described_all(ctx, g.group_id)
            continue
        for t in g.topics:
            name = t.topic_name
            info = resolver.find(name)
            topic = DescribeShareGroupOffsetsResponseTopic(topic_name=name,
                                                           topic_id=info.topic_id if info else uuid.UUID(int=0))
            out.topics.append(topic)
            for index in t.partitions:
                part = DescribeShareGroupOffsetsResponsePartition(partition_index=index, start_offset=UNKNOWN,
                                                                  leader_epoch=UNKNOWN, lag=UNKNOWN)
                topic.partitions.append(part)
                if not allowed(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, name):
                    part.error_code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
                    continue
                if info is None or not 0 <= index < info.num_partitions:
                    part.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                    continue
                try:
                    found = await persister.read_summary(share_key(g.group_id, info.topic_id, index))
                except CoordinatorLogError as exc:
                    part.error_code, part.error_message = exc.client_error(SHARE_STATE), str(exc)
                    continue
                if found is not None:
                    await _fill(ctx, part, name, found)
    return DescribeShareGroupOffsetsResponse(groups=groups)


async def _fill(
    ctx: RequestContext, part: DescribeShareGroupOffsetsResponsePartition, topic: str, found: ShareSummary
) -> None:
    part.start_offset = found.start_offset
    part.leader_epoch = found.leader_epoch
    if ctx.api_version >= LAG_MIN_VERSION and found.start_offset >= 0:
        end = await _latest_offset(ctx, topic, part.partition_index)
        if end is not None:
            part.lag = max(end - found.start_offset - max(found.delivery_complete_count, 0), 0)


async def _latest_offset(ctx: RequestContext, topic: str, partition: int) -> int | None:
    """The partition's high watermark: this broker's log, else (a cluster) its leader's."""
    found, error = await ctx.data_plane.offset_for_timestamp(topic, partition, LATEST_TIMESTAMP, None)
    if found is not None:
        return found.offset
    persister = ctx.share.partitions.persister
    if error == ErrorCode.NOT_LEADER_OR_FOLLOWER and isinstance(persister, ClusterSharePersister):
        info = TopicResolver(ctx).find(topic)
        if info is not None:
            return await persister.latest_offset(topic, info.topic_id, partition)
    return None


async def _described_all(ctx: RequestContext, group_id: str) -> list[DescribeShareGroupOffsetsResponseTopic]:
    """Every share partition of the group that has state, wherever its share coordinator is:
    each partition of each topic is asked (Kafka's group coordinator asks those of the
    topics it initialized for the group, which it records and odradek does not)."""
    persister = ctx.share.partitions.persister
    topics = sorted((t for t in ctx.topics.list_topics() if not t.internal), key=lambda t: str(t.topic_id))
    keys = [(t, share_key(group_id, t.topic_id, i)) for t in topics for i in range(t.num_partitions)]
    # A few at a time: each may be a request to another broker, on a connection of its own.
    room = asyncio.Semaphore(SUMMARIES_AT_ONCE)

    async def read(key: SharePartitionKey) -> ShareSummary | None:
        async with room:
            return await persister.read_summary(key)

    found = await asyncio.gather(*(read(k) for _, k in keys), return_exceptions=True)
    out: dict[uuid.UUID, DescribeShareGroupOffsetsResponseTopic] = {}
    for (info, key), summary in zip(keys, found, strict=True):
        if summary is None:
            continue
        if isinstance(summary, BaseException) and not isinstance(summary, CoordinatorLogError):
            raise summary
        topic = out.get(info.topic_id)
        if topic is None:
            topic = out[info.topic_id] = DescribeShareGroupOffsetsResponseTopic(topic_name=info.name,
                                                                               topic_id=info.topic_id)
        part = DescribeShareGroupOffsetsResponsePartition(partition_index=key.partition, start_offset=UNKNOWN,
                                                          leader_epoch=UNKNOWN, lag=UNKNOWN)
        topic.partitions.append(part)
        if not allowed(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, info.name):
            part.error_code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
        elif isinstance(summary, CoordinatorLogError):
            part.error_code, part.error_message = summary.client_error(SHARE_STATE), str(summary)
        else:
            await _fill(ctx, part, info.name, summary)
    return list(out.values())


async def alter(ctx: RequestContext, request: AlterShareGroupOffsetsRequest) -> AlterShareGroupOffsetsResponse:
    if not share_groups_enabled(ctx):
        return AlterShareGroupOffsetsResponse(error_code=ErrorCode.UNSUPPORTED_VERSION)
    if not allowed(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return AlterShareGroupOffsetsResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    share = ctx.share
    if (status := share.group_status(request.group_id)) is not None:
        return AlterShareGroupOffsetsResponse(error_code=status)
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
                    await _reset(ctx, share_key(request.group_id, info.topic_id, p.partition_index), p.start_offset)
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
    if (status := share.group_status(request.group_id)) is not None:
        return DeleteShareGroupOffsetsResponse(error_code=status)
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
        # Every partition of the topic: its state may be with any broker's share coordinator
        # (a partition without state costs a no-op DeleteShareGroupState).
        keys = {share_key(request.group_id, info.topic_id, i) for i in range(info.num_partitions)}
        keys |= {k for k in share.partitions.partitions
                 if k.group_id == request.group_id and k.topic_id == info.topic_id}
        try:
            for key in sorted(keys, key=lambda k: k.partition):
                await share.partitions.delete(key)
        except CoordinatorLogError as exc:
            out.error_code = exc.client_error(SHARE_STATE)
    return DeleteShareGroupOffsetsResponse(responses=responses)


async def _reset(ctx: RequestContext, key: SharePartitionKey, start_offset: int) -> None:
    """AlterShareGroupOffsets of one share partition, as Kafka's GroupCoordinatorService: its
    share coordinator initializes it at `start_offset` under the next state epoch. A share
    partition this broker holds in memory is dropped, to be read again; one held by another
    broker (its data partition's leader) was dropped there when the group became empty
    (`ShareCoordinator.release_member`)."""
    share = ctx.share
    persister = share.partitions.persister
    async with share.partitions.lock(key):
        found = await persister.read_summary(key)
        await persister.initialize(key, next_state_epoch(found), start_offset)
        share.partitions.forget(key)
