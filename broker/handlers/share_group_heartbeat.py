"""ShareGroupHeartbeat (KIP-932): join, stay and leave a share group (heartbeats as KIP-848),
answered from the share coordinator's membership (`coordinator/share/heartbeat.py`)."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import client_host
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed, allowed_names
from broker.share_support import share_groups_enabled
from coordinator.share.group import ShareTopic
from coordinator.share.heartbeat import ShareHeartbeat
from protocol.errors import ErrorCode
from protocol.messages.share_group_heartbeat_request import ShareGroupHeartbeatRequest
from protocol.messages.share_group_heartbeat_response import (
    Assignment,
    ShareGroupHeartbeatResponse,
    TopicPartitions,
)

API_KEY = 76


async def handle(ctx: RequestContext, request: ShareGroupHeartbeatRequest) -> ShareGroupHeartbeatResponse:
    if not share_groups_enabled(ctx):
        return ShareGroupHeartbeatResponse(error_code=ErrorCode.UNSUPPORTED_VERSION,
                                           error_message="Share groups are not enabled (share.version).")
    if not allowed(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return ShareGroupHeartbeatResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    subscribed = set(request.subscribed_topic_names or ())
    if subscribed and allowed_names(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, subscribed) != subscribed:
        return ShareGroupHeartbeatResponse(error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED)
    if request.group_id in ctx.groups.rt.groups or request.group_id in ctx.groups.rt.consumer_groups:
        # Kafka: a group id belongs to one type of group.
        return ShareGroupHeartbeatResponse(
            error_code=ErrorCode.GROUP_ID_NOT_FOUND,
            error_message=f"Group {request.group_id} is not a share group.",
        )
    topics = {t.name: ShareTopic(t.topic_id, t.num_partitions) for t in ctx.topics.list_topics() if not t.internal}
    result = await ctx.share.heartbeat(ShareHeartbeat(
        group_id=request.group_id,
        member_id=request.member_id,
        member_epoch=request.member_epoch,
        rack_id=request.rack_id,
        subscribed_topic_names=request.subscribed_topic_names,
        client_id=ctx.client_id or "",
        client_host=client_host(ctx),
    ), topics)
    assignment = None
    if result.assignment is not None:
        assignment = Assignment(topic_partitions=[
            TopicPartitions(topic_id=tid, partitions=ps) for tid, ps in result.assignment.items()
        ])
    return ShareGroupHeartbeatResponse(
        error_code=result.error,
        error_message=result.error_message,
        member_id=result.member_id,
        member_epoch=result.member_epoch,
        heartbeat_interval_ms=result.heartbeat_interval_ms,
        assignment=assignment,
    )
