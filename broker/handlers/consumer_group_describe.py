"""ConsumerGroupDescribe (KIP-848): a consumer group's epochs, assignor and members with
their current and target assignments."""

from __future__ import annotations

from broker.authorized_operations import ResourceType, authorized_operations
from broker.context import RequestContext
from broker.group_support import consumer_groups_enabled, group_coordinator
from broker.security.acl.model import AclOperation
from broker.security.authorization import allowed, allowed_names
from coordinator.group.consumer.assignors import Partition
from protocol.errors import ErrorCode
from protocol.messages.consumer_group_describe_request import ConsumerGroupDescribeRequest
from protocol.messages.consumer_group_describe_response import (
    Assignment,
    ConsumerGroupDescribeResponse,
    DescribedGroup,
    Member,
    TopicPartitions,
)
from storage.engine import TopicInfo

API_KEY = 69
# Kafka's MemberType: the member speaks the classic or the consumer protocol.
CLASSIC_MEMBER, CONSUMER_MEMBER = 0, 1
UNDESCRIBABLE_TOPICS = "The group has described topic(s) that the client is not authorized to describe."


def _assignment(partitions: frozenset[Partition], topics: dict[str, TopicInfo]) -> Assignment:
    by_topic: dict[str, list[int]] = {}
    for name, p in sorted(partitions):
        by_topic.setdefault(name, []).append(p)
    return Assignment(topic_partitions=[
        TopicPartitions(topic_id=topics[name].topic_id, topic_name=name, partitions=ps)
        for name, ps in by_topic.items() if name in topics
    ])


async def handle(ctx: RequestContext, request: ConsumerGroupDescribeRequest) -> ConsumerGroupDescribeResponse:
    if not consumer_groups_enabled(ctx):
        return ConsumerGroupDescribeResponse(groups=[
            DescribedGroup(group_id=g, error_code=ErrorCode.UNSUPPORTED_VERSION) for g in request.group_ids])
    coordinator = group_coordinator(ctx)
    topics = {t.name: t for t in ctx.topics.list_topics()}
    described = []
    for group_id in request.group_ids:
        if not allowed(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
            described.append(DescribedGroup(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED, group_id=group_id))
            continue
        error, group = coordinator.consumer_group(group_id)
        if group is None:
            message = f"Group {group_id} not found." if error is ErrorCode.GROUP_ID_NOT_FOUND else None
            described.append(DescribedGroup(error_code=error, error_message=message, group_id=group_id))
            continue
        out = DescribedGroup(
            group_id=group_id,
            group_state=group.state().value,
            group_epoch=group.group_epoch,
            assignment_epoch=group.assignment_epoch,
            assignor_name=group.assignor_name,
            members=[
                Member(
                    member_id=m.member_id, instance_id=m.instance_id, rack_id=m.rack_id,
                    member_epoch=m.member_epoch, client_id=m.client_id, client_host=m.client_host,
                    subscribed_topic_names=list(m.subscribed_topic_names),
                    subscribed_topic_regex=m.subscribed_topic_regex,
                    assignment=_assignment(m.assignment.assigned, topics),
                    target_assignment=_assignment(group.target.get(m.member_id, frozenset()), topics),
                    member_type=CONSUMER_MEMBER if m.classic is None else CLASSIC_MEMBER,
                )
                for m in group.members.values()
            ],
        )
        # Kafka refuses the whole group when its assignments name a topic the principal may not describe.
        named = set() if ctx.authorizer is None else {tp.topic_name for m in out.members for a in (m.assignment, m.target_assignment)
                 for tp in a.topic_partitions}
        if ctx.authorizer is not None and allowed_names(
            ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, named
        ) != named:
            described.append(DescribedGroup(error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED, group_id=group_id,
                                            error_message=UNDESCRIBABLE_TOPICS))
            continue
        if request.include_authorized_operations:
            out.authorized_operations = authorized_operations(ctx, ResourceType.GROUP, group_id)
        described.append(out)
    return ConsumerGroupDescribeResponse(groups=described)
