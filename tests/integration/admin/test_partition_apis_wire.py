"""OffsetForLeaderEpoch, DescribeTopicPartitions, DescribeLogDirs, ElectLeaders and
AlterReplicaLogDirs at the wire level: exact fields and error codes from the real broker."""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from broker.handlers.offset_for_leader_epoch import end_offset_for
from protocol import record_batch as rb
from protocol.codec import ZERO_UUID
from protocol.errors import ErrorCode
from protocol.messages.alter_replica_log_dirs_request import (
    AlterReplicaLogDir,
    AlterReplicaLogDirsRequest,
    AlterReplicaLogDirTopic,
)
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.delete_records_request import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsTopic,
)
from protocol.messages.describe_log_dirs_request import DescribableLogDirTopic, DescribeLogDirsRequest
from protocol.messages.describe_topic_partitions_request import (
    Cursor,
    DescribeTopicPartitionsRequest,
    TopicRequest,
)
from protocol.messages.elect_leaders_request import ElectLeadersRequest, TopicPartitions
from protocol.messages.offset_for_leader_epoch_request import (
    OffsetForLeaderEpochRequest,
    OffsetForLeaderPartition,
    OffsetForLeaderTopic,
)
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient

PRODUCE, CREATE_TOPICS, DELETE_RECORDS = 0, 19, 21
OFFSET_FOR_LEADER_EPOCH, ALTER_REPLICA_LOG_DIRS, DESCRIBE_LOG_DIRS = 23, 34, 35
ELECT_LEADERS, DESCRIBE_TOPIC_PARTITIONS = 43, 75
NODE_ID = 1


def unique(prefix: str = "t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def client(broker: BrokerProcess) -> Iterator[WireClient]:
    with WireClient(broker.bootstrap) as c:
        yield c


def create(c: WireClient, name: str, partitions: int) -> None:
    resp: Any = c.call(CREATE_TOPICS, 5, CreateTopicsRequest(
        topics=[CreatableTopic(name=name, num_partitions=partitions, replication_factor=1)], timeout_ms=10_000))
    assert resp.topics[0].error_code == ErrorCode.NONE


def produce(c: WireClient, topic: str, partition: int, n: int) -> int:
    """Returns the size of the batch written."""
    batch = rb.build_batch([rb.Record(b"k", b"v%d" % i, [], int(time.time() * 1000)) for i in range(n)])
    resp: Any = c.call(PRODUCE, 9, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
        TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=partition, records=batch)])]))
    assert resp.responses[0].partition_responses[0].error_code == ErrorCode.NONE
    return len(batch)


# -- OffsetForLeaderEpoch ---------------------------------------------------------------------


def epoch_end(c: WireClient, version: int, topic: str, parts: list[tuple[int, int, int]]) -> list[tuple[int, ...]]:
    resp: Any = c.call(OFFSET_FOR_LEADER_EPOCH, version, OffsetForLeaderEpochRequest(replica_id=-1, topics=[
        OffsetForLeaderTopic(topic=topic, partitions=[
            OffsetForLeaderPartition(partition=p, current_leader_epoch=current, leader_epoch=epoch)
            for p, current, epoch in parts])]))
    assert [t.topic for t in resp.topics] == [topic]
    return [(r.partition, r.error_code, r.leader_epoch, r.end_offset) for r in resp.topics[0].partitions]


@pytest.mark.parametrize("version", [2, 3, 4])
def test_offset_for_leader_epoch_answers_from_the_epoch_cache(client: WireClient, version: int) -> None:
    topic = unique()
    create(client, topic, 2)
    produce(client, topic, 0, 5)
    assert epoch_end(client, version, topic, [
        (0, -1, 0),   # epoch 0 is the latest: it ends at the log end offset
        (1, 0, 0),    # an empty partition: its log end, 0
        (0, 0, 3),    # an epoch above every known one: undefined, no error
        (0, -1, -1),  # the undefined epoch
        (0, 1, 0),    # the client knows a newer leader epoch than ours
        (2, -1, 0),   # no such partition
    ]) == [
        (0, ErrorCode.NONE, 0, 5),
        (1, ErrorCode.NONE, 0, 0),
        (0, ErrorCode.NONE, -1, -1),
        (0, ErrorCode.NONE, -1, -1),
        (0, ErrorCode.UNKNOWN_LEADER_EPOCH, -1, -1),
        (2, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1),
    ]
    assert epoch_end(client, version, unique("missing"), [(0, -1, 0)]) == [
        (0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1)
    ]


def test_offset_for_leader_epoch_below_the_first_epoch_ends_at_the_log_start(client: WireClient) -> None:
    topic = unique()
    create(client, topic, 1)
    produce(client, topic, 0, 4)
    resp: Any = client.call(DELETE_RECORDS, 2, DeleteRecordsRequest(timeout_ms=10_000, topics=[
        DeleteRecordsTopic(name=topic, partitions=[DeleteRecordsPartition(partition_index=0, offset=3)])]))
    assert resp.topics[0].partitions[0].error_code == ErrorCode.NONE
    # Kafka's cache moves its first epoch's start with the log start; an epoch below it
    # ends there, and a current epoch below ours is fenced.
    assert epoch_end(client, 4, topic, [(0, -1, -3), (0, -1, 0), (0, -5, 0)]) == [
        (0, ErrorCode.NONE, -3, 3),
        (0, ErrorCode.NONE, 0, 4),
        (0, ErrorCode.FENCED_LEADER_EPOCH, -1, -1),
    ]


def test_end_offset_for_over_several_epochs() -> None:
    """The lookup itself, over a cache a replicated log would have."""
    cache = [(1, 0), (3, 10), (4, 25)]
    assert end_offset_for(4, cache, 40) == (4, 40)
    assert end_offset_for(3, cache, 40) == (3, 25)
    assert end_offset_for(2, cache, 40) == (1, 10)
    assert end_offset_for(0, cache, 40) == (0, 0)
    assert end_offset_for(5, cache, 40) == (-1, -1)
    assert end_offset_for(-1, cache, 40) == (-1, -1)
    assert end_offset_for(0, [], 40) == (-1, -1)


# -- DescribeTopicPartitions ------------------------------------------------------------------


def describe_partitions(
    c: WireClient, names: list[str], limit: int = 2000, cursor: tuple[str, int] | None = None
) -> Any:
    return c.call(DESCRIBE_TOPIC_PARTITIONS, 0, DescribeTopicPartitionsRequest(
        topics=[TopicRequest(name=n) for n in names], response_partition_limit=limit,
        cursor=Cursor(topic_name=cursor[0], partition_index=cursor[1]) if cursor else None))


def shape(resp: Any) -> tuple[list[tuple[str, int, list[int]]], tuple[str, int] | None]:
    cursor = resp.next_cursor
    return (
        [(t.name, t.error_code, [p.partition_index for p in t.partitions]) for t in resp.topics],
        (cursor.topic_name, cursor.partition_index) if cursor is not None else None,
    )


def test_describe_topic_partitions_fields(client: WireClient) -> None:
    topic = unique("a")
    create(client, topic, 2)
    missing = unique("b")
    resp = describe_partitions(client, [missing, topic, "bad/name"])
    # Sorted by name; unknown and invalid names answered with their errors.
    assert shape(resp) == ([(topic, 0, [0, 1]), (missing, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []),
                            ("bad/name", ErrorCode.INVALID_TOPIC_EXCEPTION, [])], None)
    found = resp.topics[0]
    assert found.topic_id != ZERO_UUID and found.is_internal is False
    assert found.topic_authorized_operations > 0
    p = found.partitions[0]
    assert (p.error_code, p.leader_id, p.leader_epoch, p.replica_nodes, p.isr_nodes) == (0, NODE_ID, 0, [NODE_ID],
                                                                                         [NODE_ID])
    assert (p.eligible_leader_replicas, p.last_known_elr, p.offline_replicas) == ([], [], [])
    assert resp.topics[1].topic_id == ZERO_UUID


def test_describe_topic_partitions_pages_with_the_cursor(client: WireClient) -> None:
    prefix = unique("page")
    a, b, c = f"{prefix}-a", f"{prefix}-b", f"{prefix}-c"
    create(client, a, 3)
    create(client, b, 2)
    create(client, c, 1)
    names = [c, a, b]
    # The limit runs out inside a topic: the cursor names the next partition.
    assert shape(describe_partitions(client, names, limit=4)) == ([(a, 0, [0, 1, 2]), (b, 0, [0])], (b, 1))
    assert shape(describe_partitions(client, names, limit=4, cursor=(b, 1))) == ([(b, 0, [1]), (c, 0, [0])], None)
    # It runs out exactly at the end of a topic: the cursor is the start of the next one.
    assert shape(describe_partitions(client, names, limit=3)) == ([(a, 0, [0, 1, 2])], (b, 0))
    # A limit below 1 is taken as 1.
    assert shape(describe_partitions(client, names, limit=0)) == ([(a, 0, [0])], (a, 1))
    # With no topics named, every topic from the cursor on.
    listed = shape(describe_partitions(client, [], limit=2000, cursor=(b, 1)))
    assert listed[0][:2] == [(b, 0, [1]), (c, 0, [0])] and listed[1] is None
    # A cursor outside the topics named, or with a negative partition, fails the request.
    assert shape(describe_partitions(client, [a, b], cursor=(c, 0))) == (
        [(a, ErrorCode.INVALID_REQUEST, []), (b, ErrorCode.INVALID_REQUEST, [])], None)
    assert shape(describe_partitions(client, [a], cursor=(a, -1)))[0] == [(a, ErrorCode.INVALID_REQUEST, [])]


# -- DescribeLogDirs --------------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 3, 4])
def test_describe_log_dirs(broker: BrokerProcess, client: WireClient, version: int) -> None:
    topic = unique()
    create(client, topic, 2)
    written = produce(client, topic, 1, 3)
    resp: Any = client.call(DESCRIBE_LOG_DIRS, version, DescribeLogDirsRequest(topics=[
        DescribableLogDirTopic(topic=topic, partitions=[0, 1, 7]),
        DescribableLogDirTopic(topic=unique("missing"), partitions=[0]),
    ]))
    assert resp.error_code == ErrorCode.NONE
    [result] = resp.results
    log_dir = str(broker.data_dir.absolute())
    assert (result.error_code, result.log_dir) == (ErrorCode.NONE, log_dir)
    [described] = result.topics
    assert described.name == topic
    sizes = {p.partition_index: p.partition_size for p in described.partitions}
    assert sorted(sizes) == [0, 1] and sizes[0] == 0 and sizes[1] > 0
    on_disk = sum(os.path.getsize(os.path.join(root, f))
                  for root, _, files in os.walk(os.path.join(log_dir, f"{topic}-1")) for f in files if f.endswith(".log"))
    # The data's size: the active segment's file may run past it, by zeros (`preallocate`).
    assert sizes[1] == written <= on_disk
    assert all(p.offset_lag == 0 and p.is_future_key is False for p in described.partitions)
    if version >= 4:
        usage = shutil.disk_usage(log_dir)
        assert result.total_bytes == usage.total
        assert 0 < result.usable_bytes <= usage.total
    else:
        assert (result.total_bytes, result.usable_bytes) == (-1, -1)


def test_describe_log_dirs_of_every_partition(client: WireClient) -> None:
    topic = unique()
    create(client, topic, 3)
    resp: Any = client.call(DESCRIBE_LOG_DIRS, 4, DescribeLogDirsRequest(topics=None))
    by_name = {t.name: sorted(p.partition_index for p in t.partitions) for t in resp.results[0].topics}
    assert by_name[topic] == [0, 1, 2]


# -- ElectLeaders -----------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "election_type"), [(0, 0), (1, 1), (2, 0)])
def test_elect_leaders_is_never_needed(client: WireClient, version: int, election_type: int) -> None:
    topic = unique()
    create(client, topic, 2)
    missing = unique("missing")
    resp: Any = client.call(ELECT_LEADERS, version, ElectLeadersRequest(
        election_type=election_type, timeout_ms=10_000,
        topic_partitions=[TopicPartitions(topic=topic, partitions=[0, 1, 5]),
                          TopicPartitions(topic=missing, partitions=[0])]))
    assert resp.error_code == ErrorCode.NONE
    assert [(r.topic, [(p.partition_id, p.error_code, p.error_message) for p in r.partition_result])
            for r in resp.replica_election_results] == [
        (topic, [(0, ErrorCode.ELECTION_NOT_NEEDED, "Leader election not needed for topic partition."),
                 (1, ErrorCode.ELECTION_NOT_NEEDED, "Leader election not needed for topic partition."),
                 (5, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"No such partition as {topic}-5")]),
        (missing, [(0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"No such topic as {missing}")]),
    ]


def test_elect_leaders_of_every_partition_lists_topics_without_results(client: WireClient) -> None:
    topic = unique()
    create(client, topic, 2)
    resp: Any = client.call(ELECT_LEADERS, 2, ElectLeadersRequest(election_type=0, topic_partitions=None))
    results = {r.topic: r.partition_result for r in resp.replica_election_results}
    assert results[topic] == []
    assert all(not r for r in results.values())
    bad: Any = client.call(ELECT_LEADERS, 2, ElectLeadersRequest(election_type=7, topic_partitions=None))
    assert bad.error_code == ErrorCode.INVALID_REQUEST


# -- AlterReplicaLogDirs ----------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
def test_alter_replica_log_dirs(broker: BrokerProcess, client: WireClient, version: int) -> None:
    topic = unique()
    create(client, topic, 1)
    log_dir = str(broker.data_dir.absolute())
    resp: Any = client.call(ALTER_REPLICA_LOG_DIRS, version, AlterReplicaLogDirsRequest(dirs=[
        AlterReplicaLogDir(path=log_dir, topics=[AlterReplicaLogDirTopic(name=topic, partitions=[0, 3])]),
        AlterReplicaLogDir(path="/no/such/dir", topics=[AlterReplicaLogDirTopic(name=topic + "x", partitions=[0])]),
    ]))
    got = {(r.topic_name, p.partition_index): p.error_code for r in resp.results for p in r.partitions}
    assert got == {
        (topic, 0): ErrorCode.NONE,
        (topic, 3): ErrorCode.REPLICA_NOT_AVAILABLE,
        (topic + "x", 0): ErrorCode.LOG_DIR_NOT_FOUND,
    }
