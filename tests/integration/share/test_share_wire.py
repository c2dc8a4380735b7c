"""Share groups on the wire: the heartbeat's member epochs and assignment, ShareGroupDescribe,
ListGroups/DescribeGroups/DeleteGroups aware of the share type, share session epochs."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from odradek.testing import OdradekBroker
from protocol.errors import ErrorCode as E
from protocol.messages.add_offsets_to_txn_request import AddOffsetsToTxnRequest
from protocol.messages.alter_share_group_offsets_request import (
    AlterShareGroupOffsetsRequest,
    AlterShareGroupOffsetsRequestPartition,
    AlterShareGroupOffsetsRequestTopic,
)
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.consumer_group_heartbeat_request import ConsumerGroupHeartbeatRequest
from protocol.messages.delete_groups_request import DeleteGroupsRequest
from protocol.messages.delete_records_request import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsTopic,
)
from protocol.messages.delete_share_group_offsets_request import (
    DeleteShareGroupOffsetsRequest,
    DeleteShareGroupOffsetsRequestTopic,
)
from protocol.messages.describe_groups_request import DescribeGroupsRequest
from protocol.messages.describe_share_group_offsets_request import (
    DescribeShareGroupOffsetsRequest,
    DescribeShareGroupOffsetsRequestGroup,
    DescribeShareGroupOffsetsRequestTopic,
)
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.heartbeat_request import HeartbeatRequest
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.initialize_share_group_state_request import (
    InitializeShareGroupStateRequest,
    InitializeStateData,
)
from protocol.messages.initialize_share_group_state_request import PartitionData as InitPartition
from protocol.messages.join_group_request import JoinGroupRequest, JoinGroupRequestProtocol
from protocol.messages.leave_group_request import LeaveGroupRequest, MemberIdentity
from protocol.messages.list_groups_request import ListGroupsRequest
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from protocol.messages.offset_commit_request import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)
from protocol.messages.offset_delete_request import (
    OffsetDeleteRequest,
    OffsetDeleteRequestPartition,
    OffsetDeleteRequestTopic,
)
from protocol.messages.offset_fetch_request import (
    OffsetFetchRequest,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopics,
)
from protocol.messages.read_share_group_state_summary_request import PartitionData as SummaryPartition
from protocol.messages.read_share_group_state_summary_request import (
    ReadShareGroupStateSummaryRequest,
    ReadStateSummaryData,
)
from protocol.messages.share_acknowledge_request import AcknowledgementBatch as AckBatch
from protocol.messages.share_acknowledge_request import AcknowledgePartition as AckPartition
from protocol.messages.share_acknowledge_request import AcknowledgeTopic as AckTopic
from protocol.messages.share_acknowledge_request import ShareAcknowledgeRequest
from protocol.messages.share_fetch_request import FetchPartition, FetchTopic, ShareFetchRequest
from protocol.messages.share_group_describe_request import ShareGroupDescribeRequest
from protocol.messages.share_group_heartbeat_request import ShareGroupHeartbeatRequest
from protocol.messages.sync_group_request import SyncGroupRequest
from protocol.messages.txn_offset_commit_request import (
    TxnOffsetCommitRequest,
    TxnOffsetCommitRequestPartition,
    TxnOffsetCommitRequestTopic,
)
from protocol.messages.write_share_group_state_request import PartitionData as WritePartition
from protocol.messages.write_share_group_state_request import WriteShareGroupStateRequest, WriteStateData
from tests.broker_process import own_broker
from tests.integration.share.share_clients import create_topic, new_name, produce
from tests.kafka_wire import WireClient


def _listed(c: WireClient, types: list[str]) -> dict[str, tuple[str, str, str]]:
    resp: Any = c.call(16, 5, ListGroupsRequest(types_filter=types))
    assert resp.error_code == E.NONE
    return {g.group_id: (g.protocol_type, g.group_state, g.group_type) for g in resp.groups}


def test_share_group_membership_and_admin(share_broker: OdradekBroker) -> None:
    bs = share_broker.bootstrap
    topic = create_topic(bs, partitions=2)
    group = new_name("sg")
    with WireClient(bs) as c:
        joined: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m1", member_epoch=0,
                                                               subscribed_topic_names=[topic]))
        assert (joined.error_code, joined.member_id, joined.member_epoch) == (E.NONE, "m1", 1)
        assert joined.heartbeat_interval_ms == 5000
        [tp] = joined.assignment.topic_partitions
        assert sorted(tp.partitions) == [0, 1]
        fenced: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m1", member_epoch=7))
        assert fenced.error_code == E.FENCED_MEMBER_EPOCH

        described: Any = c.call(77, 1, ShareGroupDescribeRequest(group_ids=[group, "nope"]))
        ours, missing = described.groups
        assert (ours.error_code, ours.group_state, ours.group_epoch, ours.assignor_name) == (E.NONE, "Stable", 1,
                                                                                            "simple")
        assert [m.member_id for m in ours.members] == ["m1"]
        assert missing.error_code == E.GROUP_ID_NOT_FOUND

        assert _listed(c, ["share"])[group] == ("share", "Stable", "share")
        assert group not in _listed(c, ["consumer", "classic"])
        classic: Any = c.call(15, 6, DescribeGroupsRequest(groups=[group]))
        assert classic.groups[0].error_code == E.GROUP_ID_NOT_FOUND

        refused: Any = c.call(42, 2, DeleteGroupsRequest(groups_names=[group]))
        assert [(r.group_id, r.error_code) for r in refused.results] == [(group, E.NON_EMPTY_GROUP)]
        left: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m1", member_epoch=-1))
        assert (left.error_code, left.member_epoch) == (E.NONE, -1)
        assert _listed(c, ["share"])[group] == ("share", "Empty", "share")
        deleted: Any = c.call(42, 2, DeleteGroupsRequest(groups_names=[group]))
        assert [(r.group_id, r.error_code) for r in deleted.results] == [(group, E.NONE)]
        assert group not in _listed(c, [])


def test_share_session_epochs(share_broker: OdradekBroker) -> None:
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, ["a", "b"])
    group = new_name("sg")
    with WireClient(bs) as c:
        joined: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m", member_epoch=0,
                                                               subscribed_topic_names=[topic]))
        topic_id = joined.assignment.topic_partitions[0].topic_id
        topics = [FetchTopic(topic_id=topic_id, partitions=[FetchPartition(partition_index=0)])]
        unknown: Any = c.call(78, 1, ShareFetchRequest(group_id=group, member_id="m", share_session_epoch=1,
                                                       max_records=10, topics=topics))
        assert unknown.error_code == E.SHARE_SESSION_NOT_FOUND
        opened: Any = c.call(78, 1, ShareFetchRequest(group_id=group, member_id="m", share_session_epoch=0,
                                                      max_records=10, topics=topics))
        assert opened.error_code == E.NONE
        # share.auto.offset.reset is latest: the records before the first fetch are not delivered.
        assert [p.acquired_records for t in opened.responses for p in t.partitions] == [[]]
        stale: Any = c.call(78, 1, ShareFetchRequest(group_id=group, member_id="m", share_session_epoch=2,
                                                     max_records=10, topics=[]))
        assert stale.error_code == E.INVALID_SHARE_SESSION_EPOCH
        produce(bs, topic, ["c"])
        fetched: Any = c.call(78, 1, ShareFetchRequest(group_id=group, member_id="m", share_session_epoch=1,
                                                       max_wait_ms=5000, max_records=10, topics=[]))
        [[acquired]] = [p.acquired_records for t in fetched.responses for p in t.partitions]
        assert (acquired.first_offset, acquired.last_offset, acquired.delivery_count) == (2, 2, 1)
        assert fetched.acquisition_lock_timeout_ms == 4000
        initial_ack: Any = c.call(79, 1, ShareAcknowledgeRequest(group_id=group, member_id="m",
                                                                 share_session_epoch=0))
        assert initial_ack.error_code == E.INVALID_SHARE_SESSION_EPOCH
        closed: Any = c.call(79, 1, ShareAcknowledgeRequest(group_id=group, member_id="m", share_session_epoch=-1))
        assert closed.error_code == E.NONE
        gone: Any = c.call(78, 1, ShareFetchRequest(group_id=group, member_id="m", share_session_epoch=2,
                                                    max_records=10, topics=[]))
        assert gone.error_code == E.SHARE_SESSION_NOT_FOUND


def test_share_group_offsets_describe_alter_delete(share_broker: OdradekBroker) -> None:
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, ["a", "b", "c"])
    group = new_name("sg")

    def described(version: int = 1) -> Any:
        resp: Any = c.call(90, version, DescribeShareGroupOffsetsRequest(groups=[DescribeShareGroupOffsetsRequestGroup(
            group_id=group, topics=[DescribeShareGroupOffsetsRequestTopic(topic_name=topic, partitions=[0])])]))
        [g] = resp.groups
        return g

    with WireClient(bs) as c:
        assert described().error_code == E.GROUP_ID_NOT_FOUND
        alter = AlterShareGroupOffsetsRequest(group_id=group, topics=[AlterShareGroupOffsetsRequestTopic(
            topic_name=topic, partitions=[AlterShareGroupOffsetsRequestPartition(partition_index=0, start_offset=1)])])
        altered: Any = c.call(91, 0, alter)
        assert (altered.error_code, altered.responses[0].partitions[0].error_code) == (E.NONE, E.NONE)
        [p] = described().topics[0].partitions
        assert (p.error_code, p.start_offset, p.lag) == (E.NONE, 1, 2)

        joined: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m", member_epoch=0,
                                                               subscribed_topic_names=[topic]))
        topic_id = joined.assignment.topic_partitions[0].topic_id
        fetched: Any = c.call(78, 1, ShareFetchRequest(
            group_id=group, member_id="m", share_session_epoch=0, max_records=10,
            topics=[FetchTopic(topic_id=topic_id, partitions=[FetchPartition(partition_index=0)])]))
        [[acquired]] = [p.acquired_records for t in fetched.responses for p in t.partitions]
        assert (acquired.first_offset, acquired.last_offset) == (1, 2)
        assert c.call(91, 0, alter).error_code == E.NON_EMPTY_GROUP

        acked: Any = c.call(79, 1, ShareAcknowledgeRequest(
            group_id=group, member_id="m", share_session_epoch=1,
            topics=[AckTopic(topic_id=topic_id, partitions=[AckPartition(
                partition_index=0, acknowledgement_batches=[AckBatch(1, 2, [1])])])]))
        assert acked.error_code == E.NONE
        assert acked.responses[0].partitions[0].error_code == E.NONE
        [p] = described().topics[0].partitions
        assert (p.start_offset, p.lag) == (3, 0)
        [p0] = described(0).topics[0].partitions
        assert (p0.start_offset, p0.lag) == (3, -1)

        c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m", member_epoch=-1))
        deleted: Any = c.call(92, 0, DeleteShareGroupOffsetsRequest(
            group_id=group, topics=[DeleteShareGroupOffsetsRequestTopic(topic_name=topic)]))
        assert (deleted.error_code, deleted.responses[0].error_code) == (E.NONE, E.NONE)
        [p] = described().topics[0].partitions
        assert (p.error_code, p.start_offset) == (E.NONE, -1)


def test_a_share_groups_id_refuses_consumer_and_classic_members(share_broker: OdradekBroker) -> None:
    """A group id is of one type (Kafka 4.2's GroupMetadataManager): ConsumerGroupHeartbeat
    with a share group's id answers GROUP_ID_NOT_FOUND, JoinGroup INCONSISTENT_GROUP_PROTOCOL
    with no member id; the share group is untouched."""
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    group = new_name("sg")
    with WireClient(bs) as c:
        joined: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m1", member_epoch=0,
                                                               subscribed_topic_names=[topic]))
        assert joined.error_code == E.NONE
        consumer: Any = c.call(68, 0, ConsumerGroupHeartbeatRequest(
            group_id=group, member_id="c1", member_epoch=0, rebalance_timeout_ms=30000,
            subscribed_topic_names=[topic]))
        assert (consumer.error_code, consumer.error_message) == (E.GROUP_ID_NOT_FOUND,
                                                                 f"Group {group} is not a consumer group.")
        for member_id in ("", "known-1"):
            classic: Any = c.call(11, 9, JoinGroupRequest(
                group_id=group, session_timeout_ms=10000, rebalance_timeout_ms=10000, member_id=member_id,
                protocol_type="consumer", protocols=[JoinGroupRequestProtocol(name="range", metadata=b"")]))
            assert (classic.error_code, classic.member_id, classic.generation_id) == (
                E.INCONSISTENT_GROUP_PROTOCOL, "", -1)
        # The classic checks come first, as in Kafka: a bad session timeout is that.
        bad: Any = c.call(11, 9, JoinGroupRequest(
            group_id=group, session_timeout_ms=1, rebalance_timeout_ms=10000, member_id="",
            protocol_type="consumer", protocols=[JoinGroupRequestProtocol(name="range", metadata=b"")]))
        assert bad.error_code == E.INVALID_SESSION_TIMEOUT
        assert _listed(c, ["share"])[group] == ("share", "Stable", "share")
        assert group not in _listed(c, ["consumer", "classic"])
        again: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m1", member_epoch=1))
        assert (again.error_code, again.member_epoch) == (E.NONE, 1)


def test_share_version_0_lists_the_share_apis_and_refuses_them(tmp_path: Path) -> None:
    """At share.version 0 Kafka still lists the share APIs in ApiVersions and answers them
    UNSUPPORTED_VERSION (the Java client's ShareHeartbeatRequestManager tells that answer,
    "the cluster must have the share group protocol enabled", from an API not listed)."""
    for broker in own_broker(tmp_path / "data", {"share.version": "0"}):
        with WireClient(broker.bootstrap) as c:
            versions: Any = c.call(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
            listed = {k.api_key: (k.min_version, k.max_version) for k in versions.api_keys}
            assert {k: listed.get(k) for k in (76, 77, 78, 79)} == {76: (1, 1), 77: (1, 1), 78: (1, 2), 79: (1, 2)}
            assert {f.name: f.max_version_level for f in versions.finalized_features}.get("share.version") is None
            refused: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id="g", member_id="m1", member_epoch=0,
                                                                    subscribed_topic_names=["t"]))
            assert refused.error_code == E.UNSUPPORTED_VERSION


def test_a_share_groups_id_in_the_classic_group_and_offset_apis(share_broker: OdradekBroker) -> None:
    """What Kafka's GroupMetadataManager and OffsetMetadataManager answer for a share group's
    id: SyncGroup and Heartbeat UNKNOWN_MEMBER_ID, LeaveGroup UNKNOWN_MEMBER_ID for each
    member (the group is not a classic or consumer group); OffsetCommit and TxnOffsetCommit GROUP_ID_NOT_FOUND for every partition
    (ShareGroup.validateOffsetCommit), an admin commit (generation -1) too; OffsetFetch every
    partition at offset -1 with no error (the group's offsets are not read); OffsetDelete
    GROUP_ID_NOT_FOUND. Nothing is committed and the share group is untouched."""
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    group = new_name("sg")
    with WireClient(bs) as c:
        joined: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m1", member_epoch=0,
                                                               subscribed_topic_names=[topic]))
        assert joined.error_code == E.NONE
        sync: Any = c.call(14, 5, SyncGroupRequest(group_id=group, generation_id=1, member_id="m1",
                                                   protocol_type="consumer", protocol_name="range"))
        assert sync.error_code == E.UNKNOWN_MEMBER_ID
        beat: Any = c.call(12, 4, HeartbeatRequest(group_id=group, generation_id=1, member_id="m1"))
        assert beat.error_code == E.UNKNOWN_MEMBER_ID
        leave: Any = c.call(13, 5, LeaveGroupRequest(group_id=group, members=[MemberIdentity(member_id="m1")]))
        # GroupCoordinatorService.leaveGroup: "group not found" is each member's error.
        assert (leave.error_code, [(m.member_id, m.error_code) for m in leave.members]) == (
            E.NONE, [("m1", E.UNKNOWN_MEMBER_ID)])
        for generation, member in ((-1, ""), (1, "m1")):
            commit: Any = c.call(8, 9, OffsetCommitRequest(
                group_id=group, generation_id_or_member_epoch=generation, member_id=member,
                topics=[OffsetCommitRequestTopic(name=topic, partitions=[
                    OffsetCommitRequestPartition(partition_index=0, committed_offset=5)])]))
            assert [(p.partition_index, p.error_code) for t in commit.topics for p in t.partitions] == [
                (0, E.GROUP_ID_NOT_FOUND)]
        tid = new_name("t")
        pid: Any = c.call(22, 4, InitProducerIdRequest(transactional_id=tid, transaction_timeout_ms=60000))
        assert pid.error_code == E.NONE
        added: Any = c.call(25, 3, AddOffsetsToTxnRequest(transactional_id=tid, producer_id=pid.producer_id,
                                                          producer_epoch=pid.producer_epoch, group_id=group))
        assert added.error_code == E.NONE
        txn: Any = c.call(28, 3, TxnOffsetCommitRequest(
            transactional_id=tid, group_id=group, producer_id=pid.producer_id, producer_epoch=pid.producer_epoch,
            topics=[TxnOffsetCommitRequestTopic(name=topic, partitions=[
                TxnOffsetCommitRequestPartition(partition_index=0, committed_offset=5)])]))
        assert [(p.partition_index, p.error_code) for t in txn.topics for p in t.partitions] == [
            (0, E.GROUP_ID_NOT_FOUND)]
        aborted: Any = c.call(26, 3, EndTxnRequest(transactional_id=tid, producer_id=pid.producer_id,
                                                   producer_epoch=pid.producer_epoch, committed=False))
        assert aborted.error_code == E.NONE
        fetched: Any = c.call(9, 8, OffsetFetchRequest(groups=[OffsetFetchRequestGroup(
            group_id=group, topics=[OffsetFetchRequestTopics(name=topic, partition_indexes=[0])])]))
        [g] = fetched.groups
        assert g.error_code == E.NONE
        assert [(p.partition_index, p.committed_offset, p.error_code) for t in g.topics for p in t.partitions] == [
            (0, -1, E.NONE)]
        every: Any = c.call(9, 8, OffsetFetchRequest(groups=[OffsetFetchRequestGroup(group_id=group, topics=None)]))
        assert (every.groups[0].error_code, every.groups[0].topics) == (E.NONE, [])
        deleted: Any = c.call(47, 0, OffsetDeleteRequest(group_id=group, topics=[
            OffsetDeleteRequestTopic(name=topic, partitions=[OffsetDeleteRequestPartition(partition_index=0)])]))
        assert deleted.error_code == E.GROUP_ID_NOT_FOUND
        assert _listed(c, ["share"])[group] == ("share", "Stable", "share")
        assert group not in _listed(c, ["consumer", "classic"])
        again: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m1", member_epoch=1))
        assert (again.error_code, again.member_epoch) == (E.NONE, 1)


def test_an_acquisition_after_delete_records_starts_at_the_new_log_start(share_broker: OdradekBroker) -> None:
    """The rest of the last read kept for the next acquisition (broker/share_support.py
    ReadAhead) holds records that DeleteRecords removed meanwhile: as Kafka's share partition,
    which reads the log again and moves to its new start, they are not delivered."""
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, [str(i) for i in range(8)], batch=1)
    group = new_name("sg")
    with WireClient(bs) as c:
        alter = AlterShareGroupOffsetsRequest(group_id=group, topics=[AlterShareGroupOffsetsRequestTopic(
            topic_name=topic, partitions=[AlterShareGroupOffsetsRequestPartition(partition_index=0, start_offset=0)])])
        assert c.call(91, 0, alter).error_code == E.NONE
        joined: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m", member_epoch=0,
                                                               subscribed_topic_names=[topic]))
        topic_id = joined.assignment.topic_partitions[0].topic_id
        topics = [FetchTopic(topic_id=topic_id, partitions=[FetchPartition(partition_index=0)])]
        first: Any = c.call(78, 1, ShareFetchRequest(group_id=group, member_id="m", share_session_epoch=0,
                                                     max_records=2, topics=topics))
        assert [(a.first_offset, a.last_offset) for t in first.responses for p in t.partitions
                for a in p.acquired_records] == [(0, 1)]
        acked: Any = c.call(79, 1, ShareAcknowledgeRequest(
            group_id=group, member_id="m", share_session_epoch=1,
            topics=[AckTopic(topic_id=topic_id, partitions=[AckPartition(
                partition_index=0, acknowledgement_batches=[AckBatch(0, 1, [1])])])]))
        assert (acked.error_code, acked.responses[0].partitions[0].error_code) == (E.NONE, E.NONE)
        deleted: Any = c.call(21, 2, DeleteRecordsRequest(timeout_ms=10_000, topics=[
            DeleteRecordsTopic(name=topic, partitions=[DeleteRecordsPartition(partition_index=0, offset=5)])]))
        assert [(p.error_code, p.low_watermark) for t in deleted.topics for p in t.partitions] == [(E.NONE, 5)]

        def acquired(epoch: int) -> list[tuple[int, int]]:
            fetched: Any = c.call(78, 1, ShareFetchRequest(group_id=group, member_id="m", share_session_epoch=epoch,
                                                           max_records=2, topics=[]))
            assert fetched.error_code == E.NONE
            return [(a.first_offset, a.last_offset) for t in fetched.responses for p in t.partitions
                    for a in p.acquired_records]

        # Kafka's ShareFetchUtils: the read out of range moves the share partition to the log's
        # start and answers no records; the next fetch acquires from there.
        assert acquired(2) == []
        assert acquired(3) == [(5, 6)]


def _initialize(c: WireClient, group: str, topic_id: uuid.UUID, partition: int, state_epoch: int,
                start_offset: int) -> Any:
    answer: Any = c.call(83, 0, InitializeShareGroupStateRequest(group_id=group, topics=[InitializeStateData(
        topic_id=topic_id, partitions=[InitPartition(partition=partition, state_epoch=state_epoch,
                                                     start_offset=start_offset)])]))
    [[part]] = [t.partitions for t in answer.results]
    return part


def _write(c: WireClient, group: str, topic_id: uuid.UUID, state_epoch: int, start_offset: int) -> Any:
    answer: Any = c.call(85, 0, WriteShareGroupStateRequest(group_id=group, topics=[WriteStateData(
        topic_id=topic_id, partitions=[WritePartition(partition=0, state_epoch=state_epoch, leader_epoch=0,
                                                      start_offset=start_offset)])]))
    [[part]] = [t.partitions for t in answer.results]
    return part


def _summary(c: WireClient, group: str, topic_id: uuid.UUID, partition: int, version: int = 1) -> Any:
    answer: Any = c.call(87, version, ReadShareGroupStateSummaryRequest(group_id=group, topics=[ReadStateSummaryData(
        topic_id=topic_id, partitions=[SummaryPartition(partition=partition, leader_epoch=0)])]))
    [[part]] = [t.partitions for t in answer.results]
    return part


def test_initialize_and_read_summary_of_share_group_state(share_broker: OdradekBroker) -> None:
    """InitializeShareGroupState and ReadShareGroupStateSummary as Kafka's ShareCoordinatorShard
    serves them: a share partition without state reads start offset -1, state epoch 0; an
    initialization writes a new state epoch and start offset (an older epoch is fenced, a
    WriteShareGroupState of an older one too); a
    partition the metadata does not hold is UNKNOWN_TOPIC_OR_PARTITION, a negative one
    INVALID_REQUEST. The group's next member starts at the initialized offset."""
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, ["a", "b", "c", "d"])
    group = new_name("sg")
    with WireClient(bs) as c:
        found: Any = c.call(3, 12, MetadataRequest(topics=[MetadataRequestTopic(name=topic)]))
        topic_id = uuid.UUID(str(found.topics[0].topic_id))
        none = _summary(c, group, topic_id, 0)
        assert (none.error_code, none.start_offset, none.state_epoch, none.leader_epoch,
                none.delivery_complete_count) == (E.NONE, -1, 0, 0, -1)

        assert _initialize(c, group, topic_id, 0, 3, 2).error_code == E.NONE
        got = _summary(c, group, topic_id, 0)
        assert (got.error_code, got.start_offset, got.state_epoch, got.leader_epoch,
                got.delivery_complete_count) == (E.NONE, 2, 3, 0, 0)
        v0 = _summary(c, group, topic_id, 0, version=0)
        assert (v0.start_offset, v0.state_epoch, v0.delivery_complete_count) == (2, 3, -1)
        assert _initialize(c, group, topic_id, 0, 2, 0).error_code == E.FENCED_STATE_EPOCH
        assert _summary(c, group, topic_id, 0).start_offset == 2
        # A share partition's leader that read the state before it was initialized again.
        assert _write(c, group, topic_id, state_epoch=2, start_offset=0).error_code == E.FENCED_STATE_EPOCH
        assert _write(c, group, topic_id, state_epoch=3, start_offset=2).error_code == E.NONE
        assert _summary(c, group, topic_id, 0).start_offset == 2

        assert _initialize(c, group, topic_id, 1, 0, 0).error_code == E.UNKNOWN_TOPIC_OR_PARTITION
        assert _initialize(c, group, uuid.uuid4(), 0, 0, 0).error_code == E.UNKNOWN_TOPIC_OR_PARTITION
        assert _initialize(c, group, topic_id, -1, 0, 0).error_code == E.INVALID_REQUEST
        assert _summary(c, group, topic_id, 1).error_code == E.UNKNOWN_TOPIC_OR_PARTITION
        assert _summary(c, group, uuid.uuid4(), 0).error_code == E.UNKNOWN_TOPIC_OR_PARTITION

        described: Any = c.call(90, 1, DescribeShareGroupOffsetsRequest(groups=[DescribeShareGroupOffsetsRequestGroup(
            group_id=group, topics=None)]))
        [[p]] = [t.partitions for g in described.groups for t in g.topics]
        assert (p.partition_index, p.start_offset, p.lag) == (0, 2, 2)
        c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m", member_epoch=0,
                                                 subscribed_topic_names=[topic]))
        fetched: Any = c.call(78, 1, ShareFetchRequest(
            group_id=group, member_id="m", share_session_epoch=0, max_records=10,
            topics=[FetchTopic(topic_id=topic_id, partitions=[FetchPartition(partition_index=0)])]))
        [[acquired]] = [p.acquired_records for t in fetched.responses for p in t.partitions]
        assert (acquired.first_offset, acquired.last_offset) == (2, 3)
        c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m", member_epoch=-1))


def test_records_held_below_delete_records_do_not_hold_up_the_share_partition(share_broker: OdradekBroker) -> None:
    """A member holds records that DeleteRecords removes: as Kafka's
    SharePartition.updateCacheAndOffsets, the share partition moves to the log's new start
    past them at once (they are archived, their acknowledgement answered as done) instead of
    reading out of range until their lock ends."""
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, [str(i) for i in range(8)], batch=1)
    group = new_name("sg")
    with WireClient(bs) as c:
        alter = AlterShareGroupOffsetsRequest(group_id=group, topics=[AlterShareGroupOffsetsRequestTopic(
            topic_name=topic, partitions=[AlterShareGroupOffsetsRequestPartition(partition_index=0, start_offset=0)])])
        assert c.call(91, 0, alter).error_code == E.NONE
        joined: Any = c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m", member_epoch=0,
                                                               subscribed_topic_names=[topic]))
        topic_id = joined.assignment.topic_partitions[0].topic_id
        topics = [FetchTopic(topic_id=topic_id, partitions=[FetchPartition(partition_index=0)])]

        def acquired(epoch: int, session_topics: list[FetchTopic]) -> list[tuple[int, int]]:
            fetched: Any = c.call(78, 1, ShareFetchRequest(group_id=group, member_id="m", share_session_epoch=epoch,
                                                           max_records=2, topics=session_topics))
            assert fetched.error_code == E.NONE
            return [(a.first_offset, a.last_offset) for t in fetched.responses for p in t.partitions
                    for a in p.acquired_records]

        assert acquired(0, topics) == [(0, 1)]
        deleted: Any = c.call(21, 2, DeleteRecordsRequest(timeout_ms=10_000, topics=[
            DeleteRecordsTopic(name=topic, partitions=[DeleteRecordsPartition(partition_index=0, offset=5)])]))
        assert [(p.error_code, p.low_watermark) for t in deleted.topics for p in t.partitions] == [(E.NONE, 5)]
        # 0-1 still acquired: the read out of range moves the share partition to 5 and
        # answers no records (Kafka's ShareFetchUtils); the next fetch acquires from 5 at
        # once, not after 0-1's lock (LOCK_MS) ends.
        assert acquired(1, []) == []
        assert acquired(2, []) == [(5, 6)]
        acked: Any = c.call(79, 1, ShareAcknowledgeRequest(
            group_id=group, member_id="m", share_session_epoch=3,
            topics=[AckTopic(topic_id=topic_id, partitions=[AckPartition(
                partition_index=0, acknowledgement_batches=[AckBatch(0, 1, [1]), AckBatch(5, 6, [1])])])]))
        assert (acked.error_code, acked.responses[0].partitions[0].error_code) == (E.NONE, E.NONE)
        assert acquired(4, []) == [(7, 7)]
