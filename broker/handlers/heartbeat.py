"""Heartbeat: keeps a member's session alive and tells it when to rejoin."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import group_coordinator
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from coordinator.group.api import MemberHeartbeat
from protocol.errors import ErrorCode
from protocol.messages.heartbeat_request import HeartbeatRequest
from protocol.messages.heartbeat_response import HeartbeatResponse

API_KEY = 12


async def handle(ctx: RequestContext, request: HeartbeatRequest) -> HeartbeatResponse:
    if not allowed(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return HeartbeatResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    coordinator = group_coordinator(ctx)
    error = coordinator.heartbeat(MemberHeartbeat(
        group_id=request.group_id,
        generation_id=request.generation_id,
        member_id=request.member_id,
        group_instance_id=request.group_instance_id if ctx.api_version >= 3 else None,
    ))
    return HeartbeatResponse(error_code=error)
