"""OffsetCommit to a classic group with no members (Kafka's OffsetMetadataManager.validateOffsetCommit
and ClassicGroup.validateOffsetCommit): generation -1 is the admin client's or a standalone
consumer's commit, accepted whatever member id or instance id it carries; a generation to an
absent group is refused, GROUP_ID_NOT_FOUND from v9, ILLEGAL_GENERATION before."""

from __future__ import annotations

import uuid
from typing import Any

from protocol.errors import ErrorCode as E
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.offset_commit_request import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)
from protocol.messages.offset_fetch_request import OffsetFetchRequest, OffsetFetchRequestTopic
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient
from tests.names import unique


def _topic(client: WireClient) -> tuple[str, uuid.UUID]:
    name = unique("simple")
    created: Any = client.call(19, 7, CreateTopicsRequest(
        topics=[CreatableTopic(name=name, num_partitions=1, replication_factor=1)], timeout_ms=5000))
    assert created.topics[0].error_code == E.NONE
    return name, created.topics[0].topic_id


def _commit(client: WireClient, version: int, group: str, topic: tuple[str, uuid.UUID], offset: int,
            generation: int, member: str = "", instance: str | None = None) -> int:
    name, topic_id = topic
    by_id = version >= 10
    resp: Any = client.call(8, version, OffsetCommitRequest(
        group_id=group, generation_id_or_member_epoch=generation, member_id=member, group_instance_id=instance,
        topics=[OffsetCommitRequestTopic(name="" if by_id else name, topic_id=topic_id, partitions=[
            OffsetCommitRequestPartition(partition_index=0, committed_offset=offset)])]))
    return int(resp.topics[0].partitions[0].error_code)


def _committed(client: WireClient, group: str, topic: tuple[str, uuid.UUID]) -> int:
    resp: Any = client.call(9, 7, OffsetFetchRequest(
        group_id=group, topics=[OffsetFetchRequestTopic(name=topic[0], partition_indexes=[0])]))
    assert resp.error_code == E.NONE
    return int(resp.topics[0].partitions[0].committed_offset)


def test_generation_minus_one_with_member_fields_commits_to_an_absent_or_empty_group(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as client:
        topic = _topic(client)
        # Absent group: the commit creates a simple group; the member id is not looked at.
        absent = unique("g")
        assert _commit(client, 8, absent, topic, 3, -1, member="m") == E.NONE
        assert _committed(client, absent, topic) == 3
        # The group now exists, empty: member id and instance id are not looked at either.
        assert _commit(client, 8, absent, topic, 4, -1, member="x", instance="i") == E.NONE
        assert _commit(client, 9, absent, topic, 5, -1, member="", instance="i") == E.NONE
        assert _committed(client, absent, topic) == 5
        # The same with an instance id only, to an absent group, at v7 (the first to carry one).
        other = unique("g")
        assert _commit(client, 7, other, topic, 6, -1, instance="i") == E.NONE
        assert _committed(client, other, topic) == 6


def test_generation_to_an_absent_group_is_refused_per_version(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as client:
        topic = _topic(client)
        group = unique("g")
        answers = {v: _commit(client, v, group, topic, 1, 3, member="m") for v in (1, 2, 7, 8, 9, 10)}
        assert answers == {1: E.ILLEGAL_GENERATION, 2: E.ILLEGAL_GENERATION, 7: E.ILLEGAL_GENERATION,
                           8: E.ILLEGAL_GENERATION, 9: E.GROUP_ID_NOT_FOUND, 10: E.GROUP_ID_NOT_FOUND}
        assert _committed(client, group, topic) == -1
