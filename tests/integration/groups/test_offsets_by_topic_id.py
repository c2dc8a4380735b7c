"""OffsetCommit and OffsetFetch v10 name topics by id; the offsets are the same ones v9 sees by name."""

from __future__ import annotations

import uuid

from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.create_topics_response import CreateTopicsResponse
from protocol.messages.offset_commit_request import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)
from protocol.messages.offset_commit_response import OffsetCommitResponse
from protocol.messages.offset_fetch_request import (
    OffsetFetchRequest,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopics,
)
from protocol.messages.offset_fetch_response import OffsetFetchResponse
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient
from tests.names import unique


def test_commit_and_fetch_by_topic_id(broker: BrokerProcess) -> None:
    topic, group = unique("ids"), unique("g")
    unknown = uuid.uuid4()
    with WireClient(broker.bootstrap) as client:
        created = client.call(19, 7, CreateTopicsRequest(
            topics=[CreatableTopic(name=topic, num_partitions=2, replication_factor=1)], timeout_ms=5000))
        assert isinstance(created, CreateTopicsResponse)
        topic_id = created.topics[0].topic_id
        commit = client.call(8, 10, OffsetCommitRequest(
            group_id=group, generation_id_or_member_epoch=-1, member_id="",
            topics=[
                OffsetCommitRequestTopic(topic_id=topic_id, partitions=[
                    OffsetCommitRequestPartition(partition_index=0, committed_offset=42),
                    OffsetCommitRequestPartition(partition_index=1, committed_offset=7),
                ]),
                OffsetCommitRequestTopic(topic_id=unknown, partitions=[
                    OffsetCommitRequestPartition(partition_index=0, committed_offset=1)]),
            ]))
        assert isinstance(commit, OffsetCommitResponse)
        assert [(t.topic_id, [(p.partition_index, p.error_code) for p in t.partitions]) for t in commit.topics] == [
            (topic_id, [(0, 0), (1, 0)]),
            (unknown, [(0, 100)]),  # UNKNOWN_TOPIC_ID
        ]
        by_id = client.call(9, 10, OffsetFetchRequest(groups=[OffsetFetchRequestGroup(
            group_id=group, topics=[OffsetFetchRequestTopics(topic_id=topic_id, partition_indexes=[0, 1])])]))
        assert isinstance(by_id, OffsetFetchResponse)
        [g] = by_id.groups
        assert [(t.topic_id, t.name, [(p.partition_index, p.committed_offset) for p in t.partitions]) for t in g.topics] == [
            (topic_id, "", [(0, 42), (1, 7)])
        ]
        by_name = client.call(9, 9, OffsetFetchRequest(groups=[OffsetFetchRequestGroup(
            group_id=group, topics=[OffsetFetchRequestTopics(name=topic, partition_indexes=[0, 1])])]))
        assert isinstance(by_name, OffsetFetchResponse)
        assert [(p.partition_index, p.committed_offset) for p in by_name.groups[0].topics[0].partitions] == [(0, 42), (1, 7)]
