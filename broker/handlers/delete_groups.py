"""DeleteGroups: only Empty groups; their offsets go too."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import group_coordinator
from protocol.messages.delete_groups_request import DeleteGroupsRequest
from protocol.messages.delete_groups_response import DeletableGroupResult, DeleteGroupsResponse

API_KEY = 42


async def handle(ctx: RequestContext, request: DeleteGroupsRequest) -> DeleteGroupsResponse:
    coordinator = group_coordinator(ctx)
    results = await coordinator.delete_groups(list(request.groups_names))
    return DeleteGroupsResponse(results=[DeletableGroupResult(group_id=g, error_code=e) for g, e in results])
