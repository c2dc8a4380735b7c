"""Hand-checked byte vectors, mostly for the old versions Kafka 4 dropped (so no independent
codec has them), written out field by field from the protocol's wire format."""

from __future__ import annotations

import pytest

from protocol.message import Message
from protocol.messages import (
    AddPartitionsToTxnResponse,
    FetchRequest,
    ListOffsetsRequest,
    ListOffsetsResponse,
    MetadataRequest,
    OffsetCommitRequest,
    ProduceRequest,
    ProduceResponse,
)
from protocol.messages.add_partitions_to_txn_response import (
    AddPartitionsToTxnPartitionResult,
    AddPartitionsToTxnResult,
    AddPartitionsToTxnTopicResult,
)
from protocol.messages.fetch_request import FetchPartition, FetchTopic
from protocol.messages.list_offsets_request import ListOffsetsPartition, ListOffsetsTopic
from protocol.messages.list_offsets_response import ListOffsetsPartitionResponse, ListOffsetsTopicResponse
from protocol.messages.metadata_request import MetadataRequestTopic
from protocol.messages.offset_commit_request import OffsetCommitRequestPartition, OffsetCommitRequestTopic
from protocol.messages.produce_request import PartitionProduceData, TopicProduceData
from protocol.messages.produce_response import PartitionProduceResponse, TopicProduceResponse


def _hex(*parts: str) -> bytes:
    return bytes.fromhex("".join(parts))


VECTORS: list[tuple[str, Message, int, bytes]] = [
    (
        "metadata-v0-request-no-topics",
        MetadataRequest(topics=[]),
        0,
        _hex(
            "00000000",  # Topics: int32 count 0 (v0 has no null: "all topics" is the empty array)
        ),
    ),
    (
        "metadata-v1-request-all-topics",
        MetadataRequest(topics=None),
        1,
        _hex(
            "ffffffff",  # Topics: null (-1), which means all topics from v1
        ),
    ),
    (
        "metadata-v0-request-one-topic",
        MetadataRequest(topics=[MetadataRequestTopic(name="ab")]),
        0,
        _hex(
            "00000001",  # Topics: 1 element
            "0002",
            "6162",  # Name: int16 length 2, "ab"
        ),
    ),
    (
        "list-offsets-v0-request",
        ListOffsetsRequest(
            replica_id=-1,
            topics=[
                ListOffsetsTopic(
                    name="t",
                    partitions=[ListOffsetsPartition(partition_index=3, timestamp=-2, max_num_offsets=5)],
                )
            ],
        ),
        0,
        _hex(
            "ffffffff",  # ReplicaId -1 (IsolationLevel is v2+)
            "00000001",  # Topics: 1
            "0001",
            "74",  # Name "t"
            "00000001",  # Partitions: 1
            "00000003",  # PartitionIndex 3 (CurrentLeaderEpoch is v4+)
            "fffffffffffffffe",  # Timestamp -2 (earliest)
            "00000005",  # MaxNumOffsets 5 (v0 only)
        ),
    ),
    (
        "list-offsets-v0-response",
        ListOffsetsResponse(
            topics=[
                ListOffsetsTopicResponse(
                    name="t",
                    partitions=[
                        ListOffsetsPartitionResponse(
                            partition_index=3, error_code=0, old_style_offsets=[7, 0]
                        )
                    ],
                )
            ]
        ),
        0,
        _hex(
            # no ThrottleTimeMs before v2
            "00000001",  # Topics: 1
            "0001",
            "74",  # Name "t"
            "00000001",  # Partitions: 1
            "00000003",  # PartitionIndex 3
            "0000",  # ErrorCode 0
            "00000002",  # OldStyleOffsets: 2 int64s
            "0000000000000007",
            "0000000000000000",
            # no Timestamp/Offset before v1
        ),
    ),
    (
        "offset-commit-v1-request",
        OffsetCommitRequest(
            group_id="g",
            generation_id_or_member_epoch=4,
            member_id="m",
            topics=[
                OffsetCommitRequestTopic(
                    name="t",
                    partitions=[
                        OffsetCommitRequestPartition(
                            partition_index=0,
                            committed_offset=42,
                            commit_timestamp=1000,
                            committed_metadata=None,
                        )
                    ],
                )
            ],
        ),
        1,
        _hex(
            "0001",
            "67",  # GroupId "g"
            "00000004",  # GenerationId 4 (v1+)
            "0001",
            "6d",  # MemberId "m" (v1+); no RetentionTimeMs (v2-4)
            "00000001",  # Topics: 1
            "0001",
            "74",  # Name "t"
            "00000001",  # Partitions: 1
            "00000000",  # PartitionIndex 0
            "000000000000002a",  # CommittedOffset 42 (no leader epoch before v6)
            "00000000000003e8",  # CommitTimestamp 1000 (v1 only)
            "ffff",  # CommittedMetadata null
        ),
    ),
    (
        "offset-commit-v0-request",
        OffsetCommitRequest(
            group_id="g",
            topics=[
                OffsetCommitRequestTopic(
                    name="t",
                    partitions=[
                        OffsetCommitRequestPartition(
                            partition_index=1, committed_offset=2, committed_metadata=""
                        )
                    ],
                )
            ],
        ),
        0,
        _hex(
            "0001",
            "67",  # GroupId "g"; v0 has neither generation nor member id
            "00000001",  # Topics: 1
            "0001",
            "74",  # Name "t"
            "00000001",  # Partitions: 1
            "00000001",  # PartitionIndex 1
            "0000000000000002",  # CommittedOffset 2; no CommitTimestamp in v0
            "0000",  # CommittedMetadata ""
        ),
    ),
    (
        "produce-v2-request",
        ProduceRequest(
            acks=-1,
            timeout_ms=30000,
            topic_data=[
                TopicProduceData(
                    name="t", partition_data=[PartitionProduceData(index=0, records=b"\x01\x02\x03")]
                )
            ],
        ),
        2,
        _hex(
            # no TransactionalId before v3
            "ffff",  # Acks -1
            "00007530",  # TimeoutMs 30000
            "00000001",  # TopicData: 1
            "0001",
            "74",  # Name "t"
            "00000001",  # PartitionData: 1
            "00000000",  # Index 0
            "00000003",
            "010203",  # Records: int32 size 3, bytes
        ),
    ),
    (
        "produce-v2-response",
        ProduceResponse(
            responses=[
                TopicProduceResponse(
                    name="t",
                    partition_responses=[
                        PartitionProduceResponse(index=0, error_code=0, base_offset=10, log_append_time_ms=-1)
                    ],
                )
            ],
            throttle_time_ms=5,
        ),
        2,
        _hex(
            "00000001",  # Responses: 1
            "0001",
            "74",  # Name "t"
            "00000001",  # PartitionResponses: 1
            "00000000",  # Index 0
            "0000",  # ErrorCode 0
            "000000000000000a",  # BaseOffset 10
            "ffffffffffffffff",  # LogAppendTimeMs -1 (v2+); LogStartOffset is v5+
            "00000005",  # ThrottleTimeMs 5 (v1+), after the responses
        ),
    ),
    (
        "produce-v0-response",
        ProduceResponse(
            responses=[
                TopicProduceResponse(
                    name="t",
                    partition_responses=[PartitionProduceResponse(index=1, error_code=6, base_offset=-1)],
                )
            ],
        ),
        0,
        _hex(
            "00000001",  # Responses: 1
            "0001",
            "74",  # Name "t"
            "00000001",  # PartitionResponses: 1
            "00000001",  # Index 1
            "0006",  # ErrorCode 6 (NOT_LEADER_OR_FOLLOWER)
            "ffffffffffffffff",  # BaseOffset -1; no append time, no throttle time in v0
        ),
    ),
    (
        "fetch-v3-request",
        FetchRequest(
            replica_id=-1,
            max_wait_ms=500,
            min_bytes=1,
            max_bytes=1048576,
            topics=[
                FetchTopic(
                    topic="t",
                    partitions=[FetchPartition(partition=2, fetch_offset=100, partition_max_bytes=65536)],
                )
            ],
        ),
        3,
        _hex(
            "ffffffff",  # ReplicaId -1
            "000001f4",  # MaxWaitMs 500
            "00000001",  # MinBytes 1
            "00100000",  # MaxBytes 1 MiB (v3+); IsolationLevel is v4+, sessions v7+
            "00000001",  # Topics: 1
            "0001",
            "74",  # Topic "t"
            "00000001",  # Partitions: 1
            "00000002",  # Partition 2
            "0000000000000064",  # FetchOffset 100; LogStartOffset is v5+
            "00010000",  # PartitionMaxBytes 64 KiB
        ),
    ),
    (
        # Regression: the partition results nested in the v0-3 topic results were read and
        # written with a tagged-field section in every version (they were first reached via
        # the v4+ ResultsByTransaction, and their version range was never widened).
        "add-partitions-to-txn-v0-response",
        AddPartitionsToTxnResponse(
            throttle_time_ms=0,
            results_by_topic_v3_and_below=[
                AddPartitionsToTxnTopicResult(
                    name="t",
                    results_by_partition=[
                        AddPartitionsToTxnPartitionResult(partition_index=1, partition_error_code=48)
                    ],
                )
            ],
        ),
        0,
        _hex(
            "00000000",  # ThrottleTimeMs 0
            "00000001",  # ResultsByTopicV3AndBelow: 1
            "0001",
            "74",  # Name "t"
            "00000001",  # ResultsByPartition: 1
            "00000001",  # PartitionIndex 1
            "0030",  # PartitionErrorCode 48 (INVALID_TXN_STATE); no tagged fields before v3
        ),
    ),
    (
        "add-partitions-to-txn-v3-response",
        AddPartitionsToTxnResponse(
            throttle_time_ms=0,
            results_by_topic_v3_and_below=[
                AddPartitionsToTxnTopicResult(
                    name="t",
                    results_by_partition=[
                        AddPartitionsToTxnPartitionResult(partition_index=1, partition_error_code=0)
                    ],
                )
            ],
        ),
        3,
        _hex(
            "00000000",  # ThrottleTimeMs 0
            "02",  # ResultsByTopicV3AndBelow: compact, 1 + 1
            "02",
            "74",  # Name: compact "t"
            "02",  # ResultsByPartition: compact, 1 + 1
            "00000001",  # PartitionIndex 1
            "0000",  # PartitionErrorCode 0
            "00",  # partition result: no tagged fields
            "00",  # topic result: no tagged fields
            "00",  # response: no tagged fields
        ),
    ),
    (
        "add-partitions-to-txn-v4-response",
        AddPartitionsToTxnResponse(
            throttle_time_ms=0,
            error_code=0,
            results_by_transaction=[
                AddPartitionsToTxnResult(
                    transactional_id="x",
                    topic_results=[
                        AddPartitionsToTxnTopicResult(
                            name="t",
                            results_by_partition=[
                                AddPartitionsToTxnPartitionResult(partition_index=0, partition_error_code=0)
                            ],
                        )
                    ],
                )
            ],
        ),
        4,
        _hex(
            "00000000",  # ThrottleTimeMs 0
            "0000",  # ErrorCode 0 (v4+)
            "02",  # ResultsByTransaction: 1
            "02",
            "78",  # TransactionalId "x"
            "02",  # TopicResults: 1
            "02",
            "74",  # Name "t"
            "02",  # ResultsByPartition: 1
            "00000000",  # PartitionIndex 0
            "0000",  # PartitionErrorCode 0
            "00",  # partition result tags
            "00",  # topic result tags
            "00",  # transaction result tags
            "00",  # response tags
        ),
    ),
]


@pytest.mark.parametrize(
    ("value", "version", "wire"), [pytest.param(m, v, b, id=n) for n, m, v, b in VECTORS]
)
def test_vector(value: Message, version: int, wire: bytes) -> None:
    assert value.encode(version) == wire
    assert type(value).decode(wire, version) == value
