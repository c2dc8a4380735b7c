"""DeleteGroups: only Empty groups; their offsets go too (a share group's share-partition state)."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import group_coordinator
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed_names
from broker.share_persister import ClusterSharePersister
from broker.share_support import share_key
from coordinator.share.records import SharePartitionKey
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
    shared = [DeletableGroupResult(group_id=g, error_code=await ctx.share.delete_group(g, _elsewhere(ctx, g)))
              for g in share]
    results = await coordinator.delete_groups([g for g in names if g in permitted and g not in share])
    return DeleteGroupsResponse(
        results=denied + shared + [DeletableGroupResult(group_id=g, error_code=e) for g, e in results]
    )


def _elsewhere(ctx: RequestContext, group_id: str) -> list[SharePartitionKey]:
    """In a cluster, every share partition the group may have: its state may be with any
    broker's share coordinator (Kafka's group coordinator deletes those of the topics it
    initialized for the group, which odradek does not record). None else: the local store
    holds every share partition's state."""
    if not isinstance(ctx.share.partitions.persister, ClusterSharePersister):
        return []
    return [share_key(group_id, t.topic_id, i)
            for t in ctx.topics.list_topics() if not t.internal for i in range(t.num_partitions)]
