"""ShareGroupDescribe (KIP-932): a share group's epochs, assignor and members with their
assignments (`coordinator/share/describe.py`)."""

from __future__ import annotations

from broker.authorized_operations import ResourceType, authorized_operations
from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import allowed
from broker.share_support import share_groups_enabled
from coordinator.share.describe import describe_group
from coordinator.share.group import ShareTopic
from protocol.errors import ErrorCode
from protocol.messages.share_group_describe_request import ShareGroupDescribeRequest
from protocol.messages.share_group_describe_response import DescribedGroup, ShareGroupDescribeResponse

API_KEY = 77


async def handle(ctx: RequestContext, request: ShareGroupDescribeRequest) -> ShareGroupDescribeResponse:
    if not share_groups_enabled(ctx):
        return ShareGroupDescribeResponse(groups=[
            DescribedGroup(error_code=ErrorCode.UNSUPPORTED_VERSION, group_id=g) for g in request.group_ids
        ])
    topics = {t.name: ShareTopic(t.topic_id, t.num_partitions) for t in ctx.topics.list_topics()}
    described = []
    for group_id in request.group_ids:
        if not allowed(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
            described.append(DescribedGroup(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED, group_id=group_id))
            continue
        status = ctx.share.group_status(group_id)
        if status is not None:  # another broker coordinates the group, or it is loading
            described.append(DescribedGroup(error_code=status, group_id=group_id))
            continue
        out = describe_group(group_id, ctx.share.membership.groups.get(group_id), topics)
        if request.include_authorized_operations and out.error_code == ErrorCode.NONE:
            out.authorized_operations = authorized_operations(ctx, ResourceType.GROUP, group_id)
        described.append(out)
    return ShareGroupDescribeResponse(groups=described)
