"""SyncGroup: the leader hands in the assignment, every member gets its share."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import group_coordinator
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from coordinator.group.api import SyncMember
from protocol.errors import ErrorCode
from protocol.messages.sync_group_request import SyncGroupRequest
from protocol.messages.sync_group_response import SyncGroupResponse

API_KEY = 14


async def handle(ctx: RequestContext, request: SyncGroupRequest) -> SyncGroupResponse:
    v = ctx.api_version
    if not allowed(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return SyncGroupResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED, assignment=b"")
    coordinator = group_coordinator(ctx)
    result = await coordinator.sync_group(SyncMember(
        group_id=request.group_id,
        generation_id=request.generation_id,
        member_id=request.member_id,
        group_instance_id=request.group_instance_id if v >= 3 else None,
        protocol_type=request.protocol_type if v >= 5 else None,
        protocol_name=request.protocol_name if v >= 5 else None,
        assignments={a.member_id: a.assignment for a in request.assignments},
    ))
    return SyncGroupResponse(
        error_code=result.error,
        protocol_type=result.protocol_type,
        protocol_name=result.protocol_name,
        assignment=result.assignment,
    )
