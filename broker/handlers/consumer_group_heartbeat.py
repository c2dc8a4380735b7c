"""ConsumerGroupHeartbeat (KIP-848): the consumer group protocol's one request."""

from __future__ import annotations

import uuid

from broker.context import RequestContext
from broker.group_support import client_host, consumer_groups_enabled, group_coordinator
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed, allowed_names
from coordinator.group.consumer.heartbeat import ConsumerHeartbeat, TopicImage
from protocol.errors import ErrorCode
from protocol.messages.consumer_group_heartbeat_request import ConsumerGroupHeartbeatRequest
from protocol.messages.consumer_group_heartbeat_response import (
    Assignment,
    ConsumerGroupHeartbeatResponse,
    TopicPartitions,
)

API_KEY = 68


async def handle(ctx: RequestContext, request: ConsumerGroupHeartbeatRequest) -> ConsumerGroupHeartbeatResponse:
    if not consumer_groups_enabled(ctx):
        return ConsumerGroupHeartbeatResponse(error_code=ErrorCode.UNSUPPORTED_VERSION)
    if not allowed(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return ConsumerGroupHeartbeatResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    # Kafka's KafkaApis: a subscription naming a topic the member may not describe is refused.
    subscribed = set(request.subscribed_topic_names or ())
    if subscribed and allowed_names(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, subscribed) != subscribed:
        return ConsumerGroupHeartbeatResponse(error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED)
    topics = {t.name: TopicImage(t.topic_id, t.num_partitions, t.internal)
              for t in ctx.topics.list_topics()}
    owned: dict[uuid.UUID, list[int]] | None = None
    if request.topic_partitions is not None:
        owned = {}
        for tp in request.topic_partitions:
            owned.setdefault(tp.topic_id, []).extend(tp.partitions)
    result = await group_coordinator(ctx).consumer_heartbeat(ConsumerHeartbeat(
        group_id=request.group_id,
        member_id=request.member_id,
        member_epoch=request.member_epoch,
        instance_id=request.instance_id,
        rack_id=request.rack_id,
        rebalance_timeout_ms=request.rebalance_timeout_ms,
        subscribed_topic_names=request.subscribed_topic_names,
        subscribed_topic_regex=request.subscribed_topic_regex if ctx.api_version >= 1 else None,
        server_assignor=request.server_assignor,
        owned=owned,
        client_id=ctx.client_id or "",
        client_host=client_host(ctx),
        describable=lambda names: allowed_names(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, names),
    ), topics)
    assignment = None
    if result.assignment is not None:
        assignment = Assignment(topic_partitions=[
            TopicPartitions(topic_id=tid, partitions=ps) for tid, ps in result.assignment.items()
        ])
    return ConsumerGroupHeartbeatResponse(
        error_code=result.error,
        error_message=result.message,
        member_id=result.member_id,
        member_epoch=result.member_epoch,
        heartbeat_interval_ms=result.heartbeat_interval_ms,
        assignment=assignment,
    )
