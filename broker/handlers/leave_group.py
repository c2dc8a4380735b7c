"""LeaveGroup: one member (v0-v2) or a batch, possibly by group instance id (v3+)."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import group_coordinator
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from coordinator.group.api import LeavingMember
from protocol.errors import ErrorCode
from protocol.messages.leave_group_request import LeaveGroupRequest
from protocol.messages.leave_group_response import LeaveGroupResponse, MemberResponse

API_KEY = 13


async def handle(ctx: RequestContext, request: LeaveGroupRequest) -> LeaveGroupResponse:
    v = ctx.api_version
    if not allowed(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return LeaveGroupResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    coordinator = group_coordinator(ctx)
    if v >= 3:
        leaving = [LeavingMember(m.member_id, m.group_instance_id) for m in request.members]
    else:
        leaving = [LeavingMember(request.member_id, None)]
    error, member_errors = await coordinator.leave_group(request.group_id, leaving)
    if v < 3:
        # A single member: its error is the response's error.
        if error is ErrorCode.NONE and member_errors:
            error = member_errors[0]
        return LeaveGroupResponse(error_code=error)
    return LeaveGroupResponse(
        error_code=error,
        members=[
            MemberResponse(member_id=m.member_id, group_instance_id=m.group_instance_id, error_code=e)
            for m, e in zip(leaving, member_errors, strict=False)
        ],
    )
