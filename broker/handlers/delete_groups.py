"""DeleteGroups: only Empty groups; their offsets go too (a share group's share-partition state)."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import group_coordinator
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed_names
from protocol.errors import ErrorCode
from protocol.messages.delete_groups_request import DeleteGroupsRequest
from protocol.messages.delete_groups_response import DeletableGroupResult, DeleteGroupsResponse

API_KEY = 42


async def handle(ctx: RequestContext, request: DeleteGroupsRequest) -> DeleteGroupsResponse:
    coordinator = group_coordinator(ctx)
    names = list(request.groups_names)
    permitted = allowed_names(ctx, AclOperation.DELETE, ResourceType.GROUP, names)
    denied = [DeletableGroupResult(group_id=g, error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED)
              for g in names if g not in permitted]
    share = [g for g in names if g in permitted and ctx.share.is_share_group(g)]
    shared = [DeletableGroupResult(group_id=g, error_code=await ctx.share.delete_group(g)) for g in share]
    results = await coordinator.delete_groups([g for g in names if g in permitted and g not in share])
    return DeleteGroupsResponse(
        results=denied + shared + [DeletableGroupResult(group_id=g, error_code=e) for g, e in results]
    )
