"""OffsetCommits whose clients hang up before the answer: the connection cancels the
request while its record is being appended. Whatever happened to the write, nothing may
stay pending, so a require_stable OffsetFetch is answered normally afterwards."""

from __future__ import annotations

import socket
import struct
import time

from protocol.errors import ErrorCode
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.create_topics_response import CreateTopicsResponse
from protocol.messages.offset_commit_request import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)
from protocol.messages.offset_fetch_request import OffsetFetchRequest, OffsetFetchRequestTopic
from protocol.messages.offset_fetch_response import OffsetFetchResponse
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient
from tests.names import unique

PARTITIONS = 4
ABANDONED_COMMITS = 150
# Appends in flight when the last client left finish in milliseconds; this bounds the wait.
SETTLE_SECONDS = 10.0


def _commit_and_hang_up(bootstrap: str, group: str, topic: str, offset: int) -> None:
    client = WireClient(bootstrap)
    client.send(8, 7, OffsetCommitRequest(
        group_id=group, generation_id_or_member_epoch=-1, member_id="",
        topics=[OffsetCommitRequestTopic(name=topic, partitions=[
            OffsetCommitRequestPartition(partition_index=p, committed_offset=offset) for p in range(PARTITIONS)
        ])],
    ))
    # Reset rather than close: the broker learns of it at once, while the append runs.
    client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()


def _fetch_stable(client: WireClient, group: str, topic: str) -> dict[int, tuple[int, int]]:
    response = client.call(9, 7, OffsetFetchRequest(
        group_id=group, require_stable=True,
        topics=[OffsetFetchRequestTopic(name=topic, partition_indexes=list(range(PARTITIONS)))],
    ))
    assert isinstance(response, OffsetFetchResponse)
    assert response.error_code == ErrorCode.NONE
    return {p.partition_index: (p.error_code, p.committed_offset) for t in response.topics for p in t.partitions}


def test_abandoned_commits_leave_no_unstable_partition(broker: BrokerProcess) -> None:
    topic, group = unique("abandoned"), unique("g")
    with WireClient(broker.bootstrap) as client:
        created = client.call(19, 7, CreateTopicsRequest(
            topics=[CreatableTopic(name=topic, num_partitions=PARTITIONS, replication_factor=1)], timeout_ms=5000))
        assert isinstance(created, CreateTopicsResponse) and created.topics[0].error_code == ErrorCode.NONE
        for offset in range(ABANDONED_COMMITS):
            _commit_and_hang_up(broker.bootstrap, group, topic, offset)
        deadline = time.monotonic() + SETTLE_SECONDS
        got = _fetch_stable(client, group, topic)
        while any(error != ErrorCode.NONE for error, _ in got.values()) and time.monotonic() < deadline:
            time.sleep(0.05)
            got = _fetch_stable(client, group, topic)
        assert {error for error, _ in got.values()} == {ErrorCode.NONE}, got
        # Each partition holds one of the offsets sent (an append that became durable counts
        # though its client left), or none if no append finished before its client left.
        assert all(offset in range(-1, ABANDONED_COMMITS) for _, offset in got.values()), got
