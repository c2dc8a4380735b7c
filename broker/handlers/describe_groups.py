"""DescribeGroups: state, protocol and members (metadata and assignment once Stable)."""

from __future__ import annotations

from broker.authorized_operations import ResourceType, authorized_operations
from broker.context import RequestContext
from broker.group_support import group_coordinator
from broker.security.acl.model import AclOperation
from broker.security.authorization import allowed
from coordinator.group.classic.states import GroupState
from protocol.errors import ErrorCode
from protocol.messages.describe_groups_request import DescribeGroupsRequest
from protocol.messages.describe_groups_response import (
    DescribedGroup,
    DescribedGroupMember,
    DescribeGroupsResponse,
)

API_KEY = 15


async def handle(ctx: RequestContext, request: DescribeGroupsRequest) -> DescribeGroupsResponse:
    v = ctx.api_version
    coordinator = group_coordinator(ctx)
    groups = []
    for group_id in request.groups:
        if not allowed(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
            groups.append(DescribedGroup(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED, group_id=group_id))
            continue
        if ctx.share.is_share_group(group_id):
            # Kafka: DescribeGroups describes classic groups only.
            groups.append(_not_classic(group_id, v))
            continue
        d = coordinator.describe_group(group_id)
        described = DescribedGroup(
            error_code=d.error,
            group_id=group_id,
            group_state=d.state.value if d.state is not None else "",
            protocol_type=d.protocol_type,
            protocol_data=d.protocol,
            members=[
                DescribedGroupMember(member_id=m.member_id, group_instance_id=m.group_instance_id,
                                     client_id=m.client_id, client_host=m.client_host,
                                     member_metadata=m.metadata, member_assignment=m.assignment)
                for m in d.members
            ],
        )
        # Kafka fills the operations of groups described without error only.
        if v >= 3 and request.include_authorized_operations and d.error is ErrorCode.NONE:
            described.authorized_operations = authorized_operations(
                ctx, ResourceType.GROUP, group_id
            )
        if v >= 6 and d.error is ErrorCode.NONE and d.state is GroupState.DEAD:
            described = DescribedGroup(error_code=ErrorCode.GROUP_ID_NOT_FOUND, group_id=group_id,
                                       group_state="Dead", error_message=f"Group {group_id} not found.")
        groups.append(described)
    return DescribeGroupsResponse(groups=groups)


def _not_classic(group_id: str, version: int) -> DescribedGroup:
    if version >= 6:
        return DescribedGroup(error_code=ErrorCode.GROUP_ID_NOT_FOUND, group_id=group_id, group_state="Dead",
                              error_message=f"Group {group_id} is not a classic group.")
    return DescribedGroup(error_code=ErrorCode.NONE, group_id=group_id, group_state="Dead")
