"""Clients that disconnect right after sending a Produce: the handler is cancelled at any
await, and each batch must then be either wholly in the log with the producer state that
goes with it, or not there at all; nothing stays pending (sequences, open transactions,
flush waiters)."""

from __future__ import annotations

import socket
import struct
import time
from typing import Any

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.describe_producers_request import DescribeProducersRequest, TopicRequest
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient, encode_request
from tests.names import unique

E = ErrorCode
ABANDONED = 30
RECORDS_PER_BATCH = 2


def produce_request(topic: str, pid: int, seq: int) -> ProduceRequest:
    batch = rb.build_batch(
        [rb.Record(b"k", b"v%d" % (seq + i), [], int(time.time() * 1000)) for i in range(RECORDS_PER_BATCH)],
        producer_id=pid, producer_epoch=0, base_sequence=seq,
    )
    return ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
        TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=batch)])
    ])


def send_and_vanish(bootstrap: str, request: ProduceRequest) -> None:
    host, port = bootstrap.rsplit(":", 1)
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(encode_request(0, 9, request, correlation_id=1))
        # Reset rather than close: the broker sees the peer gone at once.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def test_abandoned_produces_leave_consistent_producer_state(broker: BrokerProcess) -> None:
    log_mark = len(broker.log())
    with WireClient(broker.bootstrap) as c:
        topic = unique("vanish")
        created: Any = c.call(19, 7, CreateTopicsRequest(timeout_ms=10_000, topics=[
            CreatableTopic(name=topic, num_partitions=1, replication_factor=1)]))
        assert created.topics[0].error_code == E.NONE
        init: Any = c.call(22, 4, InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60_000))
        pid = init.producer_id
        # Each abandoned request carries the next sequence only if the one before was
        # appended, so the log ends up with a gapless run of the producer's batches.
        written = 0
        for _ in range(ABANDONED):
            send_and_vanish(broker.bootstrap, produce_request(topic, pid, written))
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                resp: Any = c.call(1, 12, FetchRequest(max_wait_ms=0, min_bytes=0, topics=[FetchTopic(
                    topic=topic, partitions=[FetchPartition(partition=0, fetch_offset=0,
                                                            partition_max_bytes=10_000_000)])]))
                high_watermark = resp.responses[0].partitions[0].high_watermark
                if high_watermark > written:
                    break
                time.sleep(0.01)
            assert high_watermark in (written, written + RECORDS_PER_BATCH)
            written = high_watermark
        assert written > 0
        described: Any = c.call(61, 0, DescribeProducersRequest(topics=[TopicRequest(name=topic, partition_indexes=[0])]))
        [producer] = described.topics[0].partitions[0].active_producers
        assert (producer.producer_id, producer.last_sequence) == (pid, written - 1)
        # A retry of the last batch is a duplicate; the next sequence is taken, durably.
        retry: Any = c.call(0, 9, produce_request(topic, pid, written - RECORDS_PER_BATCH))
        assert (retry.responses[0].partition_responses[0].error_code,
                retry.responses[0].partition_responses[0].base_offset) == (E.NONE, written - RECORDS_PER_BATCH)
        following: Any = c.call(0, 9, produce_request(topic, pid, written))
        assert (following.responses[0].partition_responses[0].error_code,
                following.responses[0].partition_responses[0].base_offset) == (E.NONE, written)
    assert "handler failed" not in broker.log()[log_mark:]
