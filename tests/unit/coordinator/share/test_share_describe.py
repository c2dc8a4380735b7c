from __future__ import annotations

import uuid

from coordinator.share.describe import describe_group
from coordinator.share.group import ShareTopic
from coordinator.share.heartbeat import ShareGroupMembership, ShareHeartbeat
from protocol.errors import ErrorCode
from protocol.messages.share_group_describe_response import (
    Assignment,
    DescribedGroup,
    Member,
    ShareGroupDescribeResponse,
    TopicPartitions,
)
from storage.clock import ManualClock

T = uuid.UUID(int=5)
TOPICS = {"t": ShareTopic(T, 2)}


def test_unknown_group() -> None:
    assert describe_group("nope", None, TOPICS) == DescribedGroup(
        error_code=ErrorCode.GROUP_ID_NOT_FOUND, error_message="Group nope not found.", group_id="nope"
    )


def test_members_epochs_and_assignments() -> None:
    sm = ShareGroupMembership(ManualClock())
    sm.heartbeat(ShareHeartbeat("g", "b", 0, subscribed_topic_names=["t"], client_id="cb", client_host="/127.0.0.1"), TOPICS)
    sm.heartbeat(ShareHeartbeat("g", "a", 0, rack_id="r1", subscribed_topic_names=["t", "x"], client_id="ca",
                                client_host="/127.0.0.1"), TOPICS)
    got = describe_group("g", sm.groups["g"], TOPICS)
    assert (got.error_code, got.group_state, got.group_epoch, got.assignment_epoch, got.assignor_name) == (
        0, "Stable", 2, 2, "simple")
    assert got.members == [
        Member(member_id="a", rack_id="r1", member_epoch=2, client_id="ca", client_host="/127.0.0.1",
               subscribed_topic_names=["t", "x"],
               assignment=Assignment([TopicPartitions(topic_id=T, topic_name="t", partitions=[1])])),
        # b has not heartbeated since a joined: still at epoch 1 with both partitions.
        Member(member_id="b", member_epoch=1, client_id="cb", client_host="/127.0.0.1", subscribed_topic_names=["t"],
               assignment=Assignment([TopicPartitions(topic_id=T, topic_name="t", partitions=[0, 1])])),
    ]
    # It encodes at the served version.
    response = ShareGroupDescribeResponse(groups=[got])
    assert ShareGroupDescribeResponse.decode(response.encode(1), 1) == response


def test_empty_group() -> None:
    sm = ShareGroupMembership(ManualClock())
    sm.heartbeat(ShareHeartbeat("g", "a", 0, subscribed_topic_names=["t"]), TOPICS)
    sm.heartbeat(ShareHeartbeat("g", "a", -1), TOPICS)
    got = describe_group("g", sm.groups["g"], TOPICS)
    assert (got.group_state, got.group_epoch, got.members) == ("Empty", 2, [])
