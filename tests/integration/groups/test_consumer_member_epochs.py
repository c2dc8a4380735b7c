"""Wire tests of a KIP-848 group's member epochs outside the heartbeat: OffsetCommit v9+ and
OffsetFetch v9+ checked against the member's epoch (Kafka's ConsumerGroup.validateOffsetCommit
and validateOffsetFetch), and static members that leave with epoch -2 and come back under a
new member id, also after a broker restart."""

from __future__ import annotations

import uuid
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages.consumer_group_describe_request import ConsumerGroupDescribeRequest
from protocol.messages.consumer_group_heartbeat_request import ConsumerGroupHeartbeatRequest, TopicPartitions
from protocol.messages.consumer_protocol_assignment import ConsumerProtocolAssignment
from protocol.messages.consumer_protocol_subscription import ConsumerProtocolSubscription
from protocol.messages.consumer_protocol_subscription import TopicPartition as SubTopic
from protocol.messages.heartbeat_request import HeartbeatRequest
from protocol.messages.join_group_request import JoinGroupRequest, JoinGroupRequestProtocol
from protocol.messages.offset_commit_request import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)
from protocol.messages.offset_fetch_request import (
    OffsetFetchRequest,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopics,
)
from protocol.messages.sync_group_request import SyncGroupRequest
from tests.broker_process import BrokerProcess
from tests.integration.groups.other_clients import make_topic
from tests.kafka_wire import WireClient
from tests.names import unique


def heartbeat(c: WireClient, group: str, member: str, epoch: int, topic: str | None = None,
              instance: str | None = None) -> Any:
    """A heartbeat that joins (epoch 0, subscribing to `topic`), leaves (-1, -2) or keeps going."""
    request = ConsumerGroupHeartbeatRequest(group_id=group, member_id=member, member_epoch=epoch,
                                            instance_id=instance)
    if epoch == 0:
        request.rebalance_timeout_ms = 60_000
        request.subscribed_topic_names = [topic or ""]
        request.topic_partitions = []
    return c.call(68, 0, request)


def partitions(response: Any) -> set[tuple[uuid.UUID, int]]:
    return {(t.topic_id, p) for t in response.assignment.topic_partitions for p in t.partitions}


def commit(c: WireClient, version: int, group: str, member: str, epoch: int, topic: str, offset: int) -> int:
    response: Any = c.call(8, version, OffsetCommitRequest(
        group_id=group, generation_id_or_member_epoch=epoch, member_id=member,
        topics=[OffsetCommitRequestTopic(name=topic, partitions=[
            OffsetCommitRequestPartition(partition_index=0, committed_offset=offset)])]))
    return int(response.topics[0].partitions[0].error_code)


def fetch(c: WireClient, group: str, member: str | None, epoch: int, topic: str) -> tuple[int, list[int]]:
    response: Any = c.call(9, 9, OffsetFetchRequest(groups=[OffsetFetchRequestGroup(
        group_id=group, member_id=member, member_epoch=epoch,
        topics=[OffsetFetchRequestTopics(name=topic, partition_indexes=[0])])]))
    g = response.groups[0]
    return g.error_code, [p.committed_offset for t in g.topics for p in t.partitions]


def test_offset_commit_and_fetch_check_the_member_epoch(group_broker: BrokerProcess) -> None:
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 1, 0)
    with WireClient(bs) as c:
        joined = heartbeat(c, group, "m-1", 0, topic)
        assert joined.error_code == 0 and joined.member_epoch == 1
        # A member commits and fetches at its current epoch, with v9+.
        assert commit(c, 9, group, "m-1", 1, topic, 7) == ErrorCode.NONE
        assert fetch(c, group, "m-1", 1, topic) == (ErrorCode.NONE, [7])
        # Another epoch, another member, an older version, no member at all.
        assert commit(c, 9, group, "m-1", 0, topic, 8) == ErrorCode.STALE_MEMBER_EPOCH
        assert commit(c, 9, group, "m-1", 2, topic, 8) == ErrorCode.STALE_MEMBER_EPOCH
        assert commit(c, 9, group, "m-2", 1, topic, 8) == ErrorCode.UNKNOWN_MEMBER_ID
        assert commit(c, 8, group, "m-1", 1, topic, 8) == ErrorCode.UNSUPPORTED_VERSION
        assert commit(c, 9, group, "", -1, topic, 8) == ErrorCode.UNKNOWN_MEMBER_ID
        assert fetch(c, group, "m-1", 0, topic) == (ErrorCode.STALE_MEMBER_EPOCH, [])
        assert fetch(c, group, "m-2", 1, topic) == (ErrorCode.UNKNOWN_MEMBER_ID, [])
        # Without member id and epoch (admin clients) the fetch is answered.
        assert fetch(c, group, None, -1, topic) == (ErrorCode.NONE, [7])
        # Once the member left, the empty group takes commits without one.
        assert heartbeat(c, group, "m-1", -1).error_code == 0
        assert commit(c, 9, group, "", -1, topic, 9) == ErrorCode.NONE
        assert fetch(c, group, None, -1, topic) == (ErrorCode.NONE, [9])
        assert fetch(c, group, "m-1", 1, topic) == (ErrorCode.UNKNOWN_MEMBER_ID, [])


def _two_static_members(c: WireClient, group: str, topic: str) -> tuple[Any, Any]:
    a = heartbeat(c, group, "a-1", 0, topic, instance="ia")
    b = heartbeat(c, group, "b-1", 0, topic, instance="ib")
    # a gives up what moves to b, then both settle at the group epoch.
    a = heartbeat(c, group, "a-1", a.member_epoch, instance="ia")
    owned = partitions(a)
    request = ConsumerGroupHeartbeatRequest(group_id=group, member_id="a-1", member_epoch=a.member_epoch,
                                            instance_id="ia", topic_partitions=[])
    by_topic: dict[uuid.UUID, list[int]] = {}
    for tid, p in sorted(owned):
        by_topic.setdefault(tid, []).append(p)
    request.topic_partitions = [TopicPartitions(topic_id=t, partitions=ps) for t, ps in by_topic.items()]
    a = c.call(68, 0, request)
    b = heartbeat(c, group, "b-1", b.member_epoch, instance="ib")
    assert a.error_code == 0 and b.error_code == 0
    assert a.member_epoch == b.member_epoch == 2
    assert len(owned) == 2 and len(partitions(b)) == 2 and not owned & partitions(b)
    return owned, partitions(b)


def test_static_member_leaves_and_comes_back_with_its_partitions(group_broker: BrokerProcess) -> None:
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 4, 0)
    with WireClient(bs) as c:
        _, b_owned = _two_static_members(c, group, topic)
        left = heartbeat(c, group, "b-1", -2, instance="ib")
        assert (left.error_code, left.member_epoch) == (ErrorCode.NONE, -2)
        # Its instance id is taken until it returns: a second instance is refused.
        assert heartbeat(c, group, "b-x", -2, instance="ib").error_code == ErrorCode.FENCED_INSTANCE_ID
        back = heartbeat(c, group, "b-2", 0, topic, instance="ib")
        assert back.error_code == 0 and back.member_epoch == 2 and partitions(back) == b_owned


def test_static_member_comes_back_after_a_broker_restart(fresh_group_broker: BrokerProcess) -> None:
    bs, topic, group = fresh_group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 4, 0)
    with WireClient(bs) as c:
        a_owned, b_owned = _two_static_members(c, group, topic)
        assert heartbeat(c, group, "b-1", -2, instance="ib").error_code == 0
    fresh_group_broker.restart()
    with WireClient(bs) as c:
        # The member that stayed carries on at its epoch; the one that left returns under a
        # new id to the partitions it had, and the group epoch does not move.
        a = heartbeat(c, group, "a-1", 2, instance="ia")
        assert (a.error_code, a.member_epoch) == (ErrorCode.NONE, 2)
        back = heartbeat(c, group, "b-2", 0, topic, instance="ib")
        assert back.error_code == 0 and back.member_epoch == 2 and partitions(back) == b_owned
        a = heartbeat(c, group, "a-1", 2, instance="ia")
        assert (a.error_code, a.member_epoch) == (ErrorCode.NONE, 2)
        assert a.assignment is None or partitions(a) == a_owned


def subscription(topic: str, owned: list[int] | None = None) -> bytes:
    """A ConsumerProtocolSubscription v1 for `topic`, owning these of its partitions."""
    sub = ConsumerProtocolSubscription(topics=[topic], owned_partitions=[SubTopic(topic, owned or [])])
    return (1).to_bytes(2, "big") + sub.encode(1)


def classic_join(c: WireClient, group: str, member: str, topic: str, owned: list[int] | None = None) -> Any:
    return c.call(11, 7, JoinGroupRequest(
        group_id=group, session_timeout_ms=10_000, rebalance_timeout_ms=30_000, member_id=member,
        protocol_type="consumer", protocols=[JoinGroupRequestProtocol("range", subscription(topic, owned))]))


def classic_sync(c: WireClient, group: str, member: str, generation: int) -> tuple[int, list[int]]:
    response: Any = c.call(14, 5, SyncGroupRequest(group_id=group, generation_id=generation, member_id=member,
                                                   protocol_type="consumer", protocol_name="range"))
    if response.error_code or len(response.assignment) < 2:
        return response.error_code, []
    a = ConsumerProtocolAssignment.decode(response.assignment[2:], 0)
    return response.error_code, sorted(p for t in a.assigned_partitions for p in t.partitions)


def classic_heartbeat(c: WireClient, group: str, member: str, generation: int) -> int:
    response: Any = c.call(12, 4, HeartbeatRequest(group_id=group, generation_id=generation, member_id=member))
    return int(response.error_code)


def test_a_classic_member_in_a_consumer_group(group_broker: BrokerProcess) -> None:
    """JoinGroup/SyncGroup/Heartbeat against a consumer group: the broker assigns, the
    generation is the member epoch, and a partition moves only once it was released."""
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 2, 0)
    with WireClient(bs) as c:
        first = heartbeat(c, group, "m-1", 0, topic)
        assert first.member_epoch == 1 and len(partitions(first)) == 2
        asked = classic_join(c, group, "", topic)
        assert asked.error_code == ErrorCode.MEMBER_ID_REQUIRED
        joined = classic_join(c, group, asked.member_id, topic)
        classic = joined.member_id
        assert (joined.error_code, joined.generation_id, joined.protocol_type, joined.protocol_name,
                joined.leader, joined.members) == (ErrorCode.NONE, 2, "consumer", "range", "", [])
        described: Any = c.call(69, 1, ConsumerGroupDescribeRequest(group_ids=[group]))
        assert {m.member_id: m.member_type for m in described.groups[0].members} == {"m-1": 1, classic: 0}
        # Its partition is still m-1's: nothing yet, and nothing to rejoin for.
        assert classic_sync(c, group, classic, 2) == (ErrorCode.NONE, [])
        assert classic_heartbeat(c, group, classic, 2) == ErrorCode.NONE
        assert classic_heartbeat(c, group, classic, 1) == ErrorCode.ILLEGAL_GENERATION
        # m-1 gives one partition up; the classic member is told to rejoin and gets it.
        revoking = heartbeat(c, group, "m-1", 1)
        kept = sorted(p for _, p in partitions(revoking))
        assert len(kept) == 1
        settled = c.call(68, 0, ConsumerGroupHeartbeatRequest(
            group_id=group, member_id="m-1", member_epoch=revoking.member_epoch,
            topic_partitions=[TopicPartitions(t.topic_id, t.partitions) for t in revoking.assignment.topic_partitions]))
        assert settled.error_code == 0 and settled.member_epoch == 2  # type: ignore[attr-defined]
        assert classic_heartbeat(c, group, classic, 2) == ErrorCode.REBALANCE_IN_PROGRESS
        rejoined = classic_join(c, group, classic, topic)
        assert (rejoined.error_code, rejoined.generation_id) == (ErrorCode.NONE, 2)
        assert classic_sync(c, group, classic, 2) == (ErrorCode.NONE, [1 - kept[0]])
        assert classic_heartbeat(c, group, classic, 2) == ErrorCode.NONE
        # It commits with its generation, through any OffsetCommit version.
        assert commit(c, 8, group, classic, 2, topic, 5) == ErrorCode.NONE
        assert commit(c, 8, group, classic, 1, topic, 5) == ErrorCode.ILLEGAL_GENERATION
        assert fetch(c, group, classic, 2, topic) == (ErrorCode.NONE, [5])
        # The last member of the new protocol leaves: the group is classic again and the
        # member rejoins it, now as its leader.
        assert heartbeat(c, group, "m-1", -1).error_code == 0
        assert classic_heartbeat(c, group, classic, 2) != ErrorCode.NONE
        again = classic_join(c, group, classic, topic, [1 - kept[0]])
        assert again.error_code == ErrorCode.NONE and again.leader == classic and len(again.members) == 1
        assert heartbeat(c, group, "m-2", 0, topic).error_code == ErrorCode.NONE  # upgraded once more


def test_a_mixed_group_survives_a_broker_restart(fresh_group_broker: BrokerProcess) -> None:
    bs, topic, group = fresh_group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 2, 0)
    with WireClient(bs) as c:
        assert heartbeat(c, group, "m-1", 0, topic).member_epoch == 1
        joined = classic_join(c, group, "classic-1", topic)
        assert (joined.error_code, joined.generation_id) == (ErrorCode.NONE, 2)
    fresh_group_broker.restart()
    with WireClient(bs) as c:
        # The classic member is still one, with its protocols: it carries on at its generation.
        described: Any = c.call(69, 1, ConsumerGroupDescribeRequest(group_ids=[group]))
        assert {m.member_id: m.member_type for m in described.groups[0].members} == {"m-1": 1, "classic-1": 0}
        assert classic_heartbeat(c, group, "classic-1", 2) == ErrorCode.NONE
        assert classic_sync(c, group, "classic-1", 2) == (ErrorCode.NONE, [])
        assert classic_join(c, group, "classic-1", topic).protocol_name == "range"
