"""AlterPartitionReassignments and ListPartitionReassignments on a single broker: raw wire
per version, and kafka-python's admin client."""

from __future__ import annotations

import pytest
from kafka import KafkaAdminClient
from kafka import TopicPartition as KTopicPartition
from kafka import errors as kerrors
from kafka.admin import NewTopic

from protocol.errors import ErrorCode
from protocol.messages.alter_partition_reassignments_request import (
    AlterPartitionReassignmentsRequest,
    ReassignablePartition,
    ReassignableTopic,
)
from protocol.messages.alter_partition_reassignments_response import AlterPartitionReassignmentsResponse
from protocol.messages.list_partition_reassignments_request import (
    ListPartitionReassignmentsRequest,
    ListPartitionReassignmentsTopics,
)
from protocol.messages.list_partition_reassignments_response import ListPartitionReassignmentsResponse
from tests.broker_process import BrokerProcess
from tests.integration.admin.admin_wire import create, topic
from tests.kafka_wire import WireClient
from tests.names import unique

ALTER, LIST = 45, 46
NODE_ID = 1


def alter(client: WireClient, version: int, topics: list[ReassignableTopic], allow_rf_change: bool = True
          ) -> AlterPartitionReassignmentsResponse:
    request = AlterPartitionReassignmentsRequest(topics=topics, allow_replication_factor_change=allow_rf_change)
    response = client.call(ALTER, version, request)
    assert isinstance(response, AlterPartitionReassignmentsResponse)
    return response


def results(response: AlterPartitionReassignmentsResponse) -> dict[tuple[str, int], tuple[int, str | None]]:
    return {
        (t.name, p.partition_index): (p.error_code, p.error_message)
        for t in response.responses
        for p in t.partitions
    }


@pytest.mark.parametrize("version", [0, 1])
def test_alter_reassignments_wire(broker: BrokerProcess, version: int) -> None:
    name, missing = unique("reassign"), unique("reassign")
    with WireClient(broker.bootstrap) as client:
        assert create(client, topic(name, partitions=2))[0].error_code == ErrorCode.NONE
        response = alter(client, version, [
            ReassignableTopic(name, [
                ReassignablePartition(0, [NODE_ID]),       # where it already is: a no-op
                ReassignablePartition(1, [NODE_ID, 2]),    # a broker that does not exist
                ReassignablePartition(2, [NODE_ID]),       # no such partition
            ]),
            ReassignableTopic(missing, [ReassignablePartition(0, [NODE_ID])]),
        ], allow_rf_change=False)
        assert response.error_code == ErrorCode.NONE
        assert response.error_message is None
        if version >= 1:
            assert response.allow_replication_factor_change is False
        assert results(response) == {
            (name, 0): (ErrorCode.NONE, None),
            (name, 1): (
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                "The manual partition assignment includes broker 2, but no such broker is registered.",
            ),
            (name, 2): (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Unable to find partition {name}:2."),
            (missing, 0): (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Unable to find a topic named {missing}."),
        }
        response = alter(client, version, [
            ReassignableTopic(name, [
                ReassignablePartition(0, []),
                ReassignablePartition(1, [NODE_ID, NODE_ID]),
                ReassignablePartition(0, None),  # cancel: nothing is pending
            ]),
        ])
        got = [(p.partition_index, p.error_code, p.error_message) for p in response.responses[0].partitions]
        assert got == [
            (0, ErrorCode.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes an empty replica list."),
            (1, ErrorCode.INVALID_REPLICA_ASSIGNMENT,
             f"The manual partition assignment includes the broker {NODE_ID} more than once."),
            (0, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, "No partition reassignment is in progress."),
        ]


def test_list_reassignments_wire(broker: BrokerProcess) -> None:
    name = unique("reassign")
    with WireClient(broker.bootstrap) as client:
        assert create(client, topic(name))[0].error_code == ErrorCode.NONE
        assert alter(client, 0, [ReassignableTopic(name, [ReassignablePartition(0, [NODE_ID])])]).responses[0] \
            .partitions[0].error_code == ErrorCode.NONE
        for topics in (None, [ListPartitionReassignmentsTopics(name, [0, 7]), ListPartitionReassignmentsTopics(unique("reassign"), [0])]):
            response = client.call(LIST, 0, ListPartitionReassignmentsRequest(topics=topics))
            assert isinstance(response, ListPartitionReassignmentsResponse)
            assert (response.error_code, response.error_message, response.topics) == (ErrorCode.NONE, None, [])


def test_reassignments_kafka_python(broker: BrokerProcess) -> None:
    name = unique("reassign")
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        admin.create_topics([NewTopic(name, 2, 1)])
        result = admin.alter_partition_reassignments({
            KTopicPartition(name, 0): [NODE_ID],
            KTopicPartition(name, 1): [NODE_ID, 5],
            KTopicPartition(name, 5): [NODE_ID],
        })
        assert result == {
            KTopicPartition(name, 0): None,
            KTopicPartition(name, 1): kerrors.for_code(ErrorCode.INVALID_REPLICA_ASSIGNMENT),
            KTopicPartition(name, 5): kerrors.UnknownTopicOrPartitionError,
        }
        cancelled = admin.alter_partition_reassignments({KTopicPartition(name, 0): None})
        assert cancelled == {KTopicPartition(name, 0): kerrors.NoReassignmentInProgressError}
        assert admin.list_partition_reassignments() == {}
        assert admin.list_partition_reassignments([KTopicPartition(name, 0)]) == {}
    finally:
        admin.close()
