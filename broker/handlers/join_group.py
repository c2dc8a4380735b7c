"""JoinGroup: waits, without blocking other connections, until the rebalance completes."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import client_host, group_coordinator
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed, allowed_names
from coordinator.group.api import JoinMember
from protocol.errors import ErrorCode
from protocol.messages.join_group_request import JoinGroupRequest
from protocol.messages.join_group_response import JoinGroupResponse, JoinGroupResponseMember

API_KEY = 11


async def handle(ctx: RequestContext, request: JoinGroupRequest) -> JoinGroupResponse:
    v = ctx.api_version
    if not allowed(ctx, AclOperation.READ, ResourceType.GROUP, request.group_id):
        return JoinGroupResponse(
            error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED, generation_id=-1,
            protocol_name=None if v >= 7 else "", leader="", member_id="",
        )
    coordinator = group_coordinator(ctx)
    instance_id = request.group_instance_id if v >= 5 else None
    result = await coordinator.join_group(JoinMember(
        group_id=request.group_id,
        member_id=request.member_id,
        group_instance_id=instance_id,
        # KIP-394: v4+ dynamic members first get a member id, then join with it.
        require_known_member_id=v >= 4 and instance_id is None,
        client_id=ctx.client_id or "",
        client_host=client_host(ctx),
        rebalance_timeout_ms=request.rebalance_timeout_ms if v >= 1 else request.session_timeout_ms,
        session_timeout_ms=request.session_timeout_ms,
        protocol_type=request.protocol_type,
        protocols=[(p.name, p.metadata) for p in request.protocols],
        describable=lambda names: allowed_names(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, names),
    ))
    leader = result.leader_id
    members = result.members
    if result.skip_assignment:
        if v >= 9:
            leader = result.member_id  # the leader learns it leads but must not reassign
        else:
            members = []  # older leaders would reassign: answer them as a follower
    return JoinGroupResponse(
        error_code=result.error,
        generation_id=result.generation_id,
        protocol_type=result.protocol_type,
        protocol_name=result.protocol_name if v >= 7 else (result.protocol_name or ""),
        leader=leader,
        skip_assignment=result.skip_assignment and v >= 9,
        member_id=result.member_id,
        members=[JoinGroupResponseMember(member_id=m, group_instance_id=i, metadata=md) for m, i, md in members],
    )
