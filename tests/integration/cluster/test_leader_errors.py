"""The errors Kafka answers about leadership, on the wire: a broker that does not lead a
partition refuses Produce, Fetch and ListOffsets with NOT_LEADER_OR_FOLLOWER; the leader
checks the request's current_leader_epoch (FENCED_LEADER_EPOCH below its epoch,
UNKNOWN_LEADER_EPOCH above); a topic deleted on one broker is gone from the others."""

from __future__ import annotations

from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic

from odradek.testing import OdradekBroker, OdradekCluster
from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.list_offsets_request import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
from protocol.messages.offset_for_leader_epoch_request import (
    OffsetForLeaderEpochRequest,
    OffsetForLeaderPartition,
    OffsetForLeaderTopic,
)
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.kafka_wire import WireClient, fetch_partition, producer_batch
from tests.names import unique
from tests.polling import wait_until

PRODUCE, FETCH, LIST_OFFSETS, METADATA, OFFSET_FOR_LEADER_EPOCH = 0, 1, 2, 3, 23


def leader_and_epoch(client: WireClient, topic: str) -> tuple[int, int]:
    resp: Any = client.call(METADATA, 9, MetadataRequest(topics=[MetadataRequestTopic(name=topic)],
                                                         allow_auto_topic_creation=False))
    partition = resp.topics[0].partitions[0] if resp.topics[0].partitions else None
    if partition is None:
        return -1, -1
    return partition.leader_id, partition.leader_epoch


def produce(client: WireClient, topic: str) -> int:
    resp: Any = client.call(PRODUCE, 9, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
        TopicProduceData(name=topic, partition_data=[
            PartitionProduceData(index=0, records=producer_batch(-1, -1, -1, n=1))])]))
    return int(resp.responses[0].partition_responses[0].error_code)


def fetch(client: WireClient, topic: str, epoch: int) -> int:
    resp: Any = client.call(FETCH, 12, FetchRequest(max_wait_ms=0, min_bytes=0, max_bytes=1_000_000, topics=[
        FetchTopic(topic=topic, partitions=[FetchPartition(partition=0, fetch_offset=0, current_leader_epoch=epoch,
                                                           partition_max_bytes=1_000_000)])]))
    return int(resp.responses[0].partitions[0].error_code)


def list_offsets(client: WireClient, topic: str, epoch: int) -> int:
    resp: Any = client.call(LIST_OFFSETS, 7, ListOffsetsRequest(replica_id=-1, topics=[
        ListOffsetsTopic(name=topic, partitions=[
            ListOffsetsPartition(partition_index=0, current_leader_epoch=epoch, timestamp=-1)])]))
    return int(resp.topics[0].partitions[0].error_code)


def offset_for_epoch(client: WireClient, topic: str, current: int, wanted: int) -> tuple[int, int, int]:
    resp: Any = client.call(OFFSET_FOR_LEADER_EPOCH, 3, OffsetForLeaderEpochRequest(replica_id=-1, topics=[
        OffsetForLeaderTopic(topic=topic, partitions=[
            OffsetForLeaderPartition(partition=0, current_leader_epoch=current, leader_epoch=wanted)])]))
    answer = resp.topics[0].partitions[0]
    return answer.error_code, answer.leader_epoch, answer.end_offset


def test_leadership_errors_as_kafka_answers_them(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("errors")
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    with WireClient(cluster.broker(1).bootstrap) as any_broker:
        wait_until(lambda: leader_and_epoch(any_broker, topic)[0] in (1, 2, 3), timeout=30, what="a leader")
        leader, epoch = leader_and_epoch(any_broker, topic)
    others = [n for n in (1, 2, 3) if n != leader]
    with WireClient(cluster.broker(leader).bootstrap) as client:
        wait_until(lambda: produce(client, topic) == ErrorCode.NONE, timeout=15, what="the leader serving")
        assert fetch(client, topic, epoch) == ErrorCode.NONE
        assert fetch(client, topic, -1) == ErrorCode.NONE
        assert fetch(client, topic, epoch + 1) == ErrorCode.UNKNOWN_LEADER_EPOCH
        assert list_offsets(client, topic, epoch) == ErrorCode.NONE
        assert list_offsets(client, topic, epoch + 1) == ErrorCode.UNKNOWN_LEADER_EPOCH
    for node in others:
        with WireClient(cluster.broker(node).bootstrap) as client:
            # Each broker learns the topic and its leader on its own (NOTIFY): until then it
            # answers UNKNOWN_TOPIC_OR_PARTITION.
            wait_until(lambda client=client: leader_and_epoch(client, topic) == (leader, epoch), timeout=15,
                       what=f"broker {node} knowing the leader of {topic}")
            assert produce(client, topic) == ErrorCode.NOT_LEADER_OR_FOLLOWER
            assert fetch(client, topic, -1) == ErrorCode.NOT_LEADER_OR_FOLLOWER
            assert list_offsets(client, topic, -1) == ErrorCode.NOT_LEADER_OR_FOLLOWER
    # The leader stops: its successor leads in a later epoch, and a client still naming the
    # old one is fenced.
    assert cluster.broker(leader).stop() == 0
    with WireClient(cluster.broker(others[0]).bootstrap) as any_broker:
        wait_until(lambda: leader_and_epoch(any_broker, topic)[0] in others, timeout=30, what="a new leader")
        successor, new_epoch = leader_and_epoch(any_broker, topic)
    assert new_epoch > epoch
    with WireClient(cluster.broker(successor).bootstrap) as client:
        wait_until(lambda: fetch(client, topic, new_epoch) == ErrorCode.NONE, timeout=15, what="the successor serving")
        assert fetch(client, topic, epoch) == ErrorCode.FENCED_LEADER_EPOCH
        assert list_offsets(client, topic, epoch) == ErrorCode.FENCED_LEADER_EPOCH
        assert produce(client, topic) == ErrorCode.NONE
        # The epoch history: the old epoch ends where the new one began (after the one
        # record written before), the new one at the log end; batches carry their epoch.
        assert offset_for_epoch(client, topic, new_epoch, epoch) == (ErrorCode.NONE, epoch, 1)
        assert offset_for_epoch(client, topic, new_epoch, new_epoch) == (ErrorCode.NONE, new_epoch, 2)
        assert offset_for_epoch(client, topic, epoch, new_epoch)[0] == ErrorCode.FENCED_LEADER_EPOCH
        fetched: Any = fetch_partition(client, topic, committed=False)
        assert [h.partition_leader_epoch for _, h in rb.iter_batches(fetched.records)] == [epoch, new_epoch]


def partitions_listed(broker: OdradekBroker, topic: str) -> int | None:
    """How many partitions `topic` has in this very broker's listing of every topic (None:
    not listed); a client asks whichever broker it picks once it has learnt the others."""
    with WireClient(broker.bootstrap) as client:
        resp: Any = client.call(METADATA, 9, MetadataRequest(topics=None, allow_auto_topic_creation=False))
    return next((len(t.partitions) for t in resp.topics if t.name == topic), None)


def test_a_topic_deleted_on_one_broker_is_gone_from_the_others(cluster: OdradekCluster) -> None:
    topic = unique("deleted")
    first = AdminClient({"bootstrap.servers": cluster.broker(1).bootstrap})
    first.create_topics([NewTopic(topic, 2, 1)])[topic].result(30)
    clients = {n: AdminClient({"bootstrap.servers": cluster.broker(n).bootstrap}) for n in (1, 2, 3)}

    def everywhere() -> list[int | None]:
        return [partitions_listed(broker, topic) for broker in cluster.brokers.values()]

    wait_until(lambda: everywhere() == [2, 2, 2], timeout=30, what="the topic everywhere")
    clients[2].delete_topics([topic])[topic].result(30)
    wait_until(lambda: everywhere() == [None, None, None], timeout=30, what="the topic gone everywhere")
    # The name is free again, on any broker.
    clients[3].create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    wait_until(lambda: everywhere() == [1, 1, 1], timeout=30, what="the new topic everywhere")
