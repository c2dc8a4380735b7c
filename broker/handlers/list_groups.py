"""ListGroups: every group, filtered by state (v4+) and type (v5+)."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import group_coordinator
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed, cluster_allowed
from protocol.messages.list_groups_request import ListGroupsRequest
from protocol.messages.list_groups_response import ListedGroup, ListGroupsResponse

API_KEY = 16
# Share groups (KIP-932) list with protocol type and group type "share".
SHARE_GROUP_TYPE = "share"


async def handle(ctx: RequestContext, request: ListGroupsRequest) -> ListGroupsResponse:
    v = ctx.api_version
    coordinator = group_coordinator(ctx)
    error, groups = coordinator.list_groups(
        list(request.states_filter) if v >= 4 else [],
        list(request.types_filter) if v >= 5 else [],
    )
    listed = [
        ListedGroup(group_id=g.group_id, protocol_type=g.protocol_type, group_state=g.state.value,
                    group_type=g.group_type)
        for g in groups
    ]
    wanted_states = {s.lower() for s in request.states_filter} if v >= 4 else set()
    wanted_types = {t.lower() for t in request.types_filter} if v >= 5 else set()
    if not wanted_types or SHARE_GROUP_TYPE in wanted_types:
        for group_id in ctx.share.group_ids():
            state = ctx.share.group_state(group_id).value
            if not wanted_states or state.lower() in wanted_states:
                listed.append(ListedGroup(group_id=group_id, protocol_type=SHARE_GROUP_TYPE, group_state=state,
                                          group_type=SHARE_GROUP_TYPE))
    # Kafka's KafkaApis.handleListGroupsRequest: all groups with DESCRIBE on the cluster,
    # otherwise only those the principal may describe.
    if not cluster_allowed(ctx, AclOperation.DESCRIBE):
        listed = [g for g in listed if allowed(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, g.group_id)]
    return ListGroupsResponse(error_code=error, groups=listed)
