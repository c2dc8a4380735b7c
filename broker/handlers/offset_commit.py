"""OffsetCommit v0-v10 (v10 names topics by id; offsets are kept by topic name)."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import group_coordinator, topic_name_of, unknown_partition
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from coordinator.group.api import CommitOffsets
from coordinator.group.offsets import OffsetAndMetadata
from protocol.errors import ErrorCode
from protocol.messages.offset_commit_request import OffsetCommitRequest
from protocol.messages.offset_commit_response import (
    OffsetCommitResponse,
    OffsetCommitResponsePartition,
    OffsetCommitResponseTopic,
)

API_KEY = 8
TOPIC_IDS_MIN_VERSION = 10


async def handle(ctx: RequestContext, request: OffsetCommitRequest) -> OffsetCommitResponse:
    v = ctx.api_version
    coordinator = group_coordinator(ctx)
    now = ctx.clock.now_ms()
    errors: dict[tuple[str, int], ErrorCode] = {}
    offsets: dict[tuple[str, int], OffsetAndMetadata] = {}
    names = [topic_name_of(ctx, t.name, t.topic_id, by_id=v >= TOPIC_IDS_MIN_VERSION) for t in request.topics]
    # KafkaApis.handleOffsetCommitRequest: READ on the group, then READ on each topic.
    group_denied = not allowed(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id)
    for topic, name in zip(request.topics, names, strict=True):
        topic_denied = name is not None and not allowed(ctx, AclOperation.READ, ResourceType.TOPIC, name)
        for p in topic.partitions:
            tp = (name or "", p.partition_index)
            if group_denied:
                errors[tp] = ErrorCode.GROUP_AUTHORIZATION_FAILED
                continue
            if topic_denied:
                errors[tp] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
                continue
            if name is None:
                errors[tp] = ErrorCode.UNKNOWN_TOPIC_ID
                continue
            if unknown_partition(ctx, name, p.partition_index):
                errors[tp] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                continue
            offsets[tp] = OffsetAndMetadata(
                offset=p.committed_offset,
                leader_epoch=p.committed_leader_epoch if v >= 6 else -1,
                metadata=p.committed_metadata or "",
                commit_timestamp=p.commit_timestamp if v == 1 and p.commit_timestamp != -1 else now,
                expire_timestamp=(now + request.retention_time_ms
                                  if 2 <= v <= 4 and request.retention_time_ms != -1 else -1),
            )
    if offsets:
        errors.update(await coordinator.commit_offsets(CommitOffsets(
            group_id=request.group_id,
            member_id=request.member_id if v >= 1 else "",
            group_instance_id=request.group_instance_id if v >= 7 else None,
            generation_id=request.generation_id_or_member_epoch if v >= 1 else -1,
            offsets=offsets,
            api_version=v,
        )))
    return OffsetCommitResponse(
        topics=[
            OffsetCommitResponseTopic(
                name=topic.name,
                topic_id=topic.topic_id,
                partitions=[
                    OffsetCommitResponsePartition(
                        partition_index=p.partition_index,
                        error_code=errors[(name or "", p.partition_index)],
                    )
                    for p in topic.partitions
                ],
            )
            for topic, name in zip(request.topics, names, strict=True)
        ]
    )
