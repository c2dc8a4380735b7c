"""DeleteRecords naming a partition, or a topic, more than once (on every engine): Kafka's
KafkaApis.handleDeleteRecordsRequest keys the request by TopicPartition, so a partition is
deleted once, at the offset named last, and answered once, its topic once."""

from __future__ import annotations

import time
from typing import Any

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.delete_records_request import (
    DeleteRecordsPartition,
    DeleteRecordsRequest,
    DeleteRecordsTopic,
)
from protocol.messages.list_offsets_request import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient
from tests.names import unique

PRODUCE, LIST_OFFSETS, CREATE_TOPICS, DELETE_RECORDS = 0, 2, 19, 21
EARLIEST = -2


def produce(c: WireClient, topic: str, partition: int, n: int) -> None:
    batch = rb.build_batch([rb.Record(b"k", b"v%d" % i, [], int(time.time() * 1000)) for i in range(n)])
    resp: Any = c.call(PRODUCE, 9, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
        TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=partition, records=batch)])]))
    assert resp.responses[0].partition_responses[0].error_code == ErrorCode.NONE


def earliest(c: WireClient, topic: str, partition: int) -> int:
    resp: Any = c.call(LIST_OFFSETS, 7, ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[
        ListOffsetsTopic(name=topic, partitions=[ListOffsetsPartition(partition_index=partition, timestamp=EARLIEST)])
    ]))
    p = resp.topics[0].partitions[0]
    assert p.error_code == ErrorCode.NONE
    offset: int = p.offset
    return offset


def test_a_partition_named_twice_is_deleted_and_answered_once_at_the_offset_named_last(
    broker: BrokerProcess,
) -> None:
    topic = unique("del-twice")
    with WireClient(broker.bootstrap) as c:
        resp: Any = c.call(CREATE_TOPICS, 5, CreateTopicsRequest(
            topics=[CreatableTopic(name=topic, num_partitions=2, replication_factor=1)], timeout_ms=10_000))
        assert resp.topics[0].error_code == ErrorCode.NONE
        produce(c, topic, 0, 4)
        produce(c, topic, 1, 4)
        resp = c.call(DELETE_RECORDS, 2, DeleteRecordsRequest(timeout_ms=10_000, topics=[
            DeleteRecordsTopic(name=topic, partitions=[
                DeleteRecordsPartition(partition_index=0, offset=3),
                DeleteRecordsPartition(partition_index=1, offset=2),
                DeleteRecordsPartition(partition_index=0, offset=1),
                DeleteRecordsPartition(partition_index=5, offset=0),
            ]),
            DeleteRecordsTopic(name=topic, partitions=[
                DeleteRecordsPartition(partition_index=1, offset=4),
                DeleteRecordsPartition(partition_index=5, offset=0),
            ]),
        ]))
        assert [t.name for t in resp.topics] == [topic]
        assert sorted((p.partition_index, p.error_code, p.low_watermark) for p in resp.topics[0].partitions) == [
            (0, ErrorCode.NONE, 1),
            (1, ErrorCode.NONE, 4),
            (5, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1),
        ]
        assert (earliest(c, topic, 0), earliest(c, topic, 1)) == (1, 4)
