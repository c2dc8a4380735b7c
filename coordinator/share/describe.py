"""ShareGroupDescribe's group entries, built from the share groups' membership."""

from __future__ import annotations

from collections.abc import Mapping

from coordinator.share.assignor import TopicPartition
from coordinator.share.group import ShareGroup, ShareTopic
from protocol.errors import ErrorCode
from protocol.messages.share_group_describe_response import (
    Assignment,
    DescribedGroup,
    Member,
    TopicPartitions,
)


def describe_group(group_id: str, group: ShareGroup | None, topics: Mapping[str, ShareTopic]) -> DescribedGroup:
    """GROUP_ID_NOT_FOUND for a group that is not a share group here, as Kafka answers."""
    if group is None:
        return DescribedGroup(
            error_code=ErrorCode.GROUP_ID_NOT_FOUND,
            error_message=f"Group {group_id} not found.",
            group_id=group_id,
        )
    return DescribedGroup(
        group_id=group_id,
        group_state=group.state.value,
        group_epoch=group.group_epoch,
        assignment_epoch=group.assignment_epoch,
        assignor_name=group.assignor_name,
        members=[
            Member(
                member_id=m.member_id,
                rack_id=m.rack_id,
                member_epoch=m.member_epoch,
                client_id=m.client_id,
                client_host=m.client_host,
                subscribed_topic_names=sorted(m.subscribed_topics),
                assignment=_assignment(m.assignment, topics),
            )
            for m in sorted(group.members.values(), key=lambda m: m.member_id)
        ],
    )


def _assignment(tps: frozenset[TopicPartition], topics: Mapping[str, ShareTopic]) -> Assignment:
    by_topic: dict[str, list[int]] = {}
    for topic, index in sorted(tps):
        by_topic.setdefault(topic, []).append(index)
    return Assignment(
        topic_partitions=[
            TopicPartitions(topic_id=topics[t].topic_id, topic_name=t, partitions=ps)
            for t, ps in by_topic.items()
            if t in topics
        ]
    )
