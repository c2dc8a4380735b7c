"""OffsetDelete: drop committed offsets of topics the group no longer consumes."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import group_coordinator
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed, allowed_names
from protocol.errors import ErrorCode
from protocol.messages.offset_delete_request import OffsetDeleteRequest
from protocol.messages.offset_delete_response import (
    OffsetDeleteResponse,
    OffsetDeleteResponsePartition,
    OffsetDeleteResponseTopic,
)

API_KEY = 47


async def handle(ctx: RequestContext, request: OffsetDeleteRequest) -> OffsetDeleteResponse:
    if not allowed(ctx, AclOperation.DELETE, ResourceType.GROUP, request.group_id):
        return OffsetDeleteResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    coordinator = group_coordinator(ctx)
    readable = allowed_names(ctx, AclOperation.READ, ResourceType.TOPIC, {t.name for t in request.topics})
    partitions = [(t.name, p.partition_index) for t in request.topics for p in t.partitions if t.name in readable]
    error, results = await coordinator.delete_offsets(request.group_id, partitions)
    for t in request.topics:
        if t.name not in readable:
            results.update({(t.name, p.partition_index): ErrorCode.TOPIC_AUTHORIZATION_FAILED for p in t.partitions})
    if error is not ErrorCode.NONE:
        return OffsetDeleteResponse(error_code=error)
    return OffsetDeleteResponse(
        topics=[
            OffsetDeleteResponseTopic(name=t.name, partitions=[
                OffsetDeleteResponsePartition(partition_index=p.partition_index,
                                              error_code=results[(t.name, p.partition_index)])
                for p in t.partitions
            ])
            for t in request.topics
        ]
    )
