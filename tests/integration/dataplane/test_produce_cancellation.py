"""Clients that disconnect right after sending a Produce: the handler is cancelled at any
await, and each batch must then be either wholly in the log with the producer state that
goes with it, or not there at all; nothing stays pending (sequences, open transactions,
flush waiters)."""

from __future__ import annotations

import re
import socket
import struct
import time
from functools import partial
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
from tests.polling import wait_until

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


def send_and_vanish(broker: BrokerProcess, request: ProduceRequest) -> str:
    """Sends `request` and resets the connection; its address as the broker logs it."""
    host, port = broker.bootstrap.rsplit(":", 1)
    with socket.create_connection((host, int(port))) as sock:
        local_host, local_port = sock.getsockname()[:2]
        peer = f"{local_host}:{local_port}"
        # Reset once the broker holds the connection: reset before, its peer address is
        # gone (logged as None) and the request never read.
        wait_until(partial(broker_logged, broker, "connection opened", peer), timeout=60, what=f"{peer} opened")
        sock.sendall(encode_request(0, 9, request, correlation_id=1))
        # Reset rather than close: the broker sees the peer gone at once.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    return peer


def broker_logged(broker: BrokerProcess, event: str, peer: str) -> bool:
    """The broker logged `event` ("connection opened" or "closed", broker/connection.py)
    of the connection from `peer`."""
    with open(broker.log_path, "rb") as log:
        text = log.read().decode(errors="replace")
    return re.search(rf"{event}.* peer={re.escape(peer)}(\s|$)", text, re.MULTILINE) is not None


def last_sequence(c: WireClient, topic: str) -> int:
    """The producer's last sequence in the log (DescribeProducers reads the producer state
    of what was appended, durable yet or not); -1 before its first batch."""
    described: Any = c.call(61, 0, DescribeProducersRequest(topics=[TopicRequest(name=topic, partition_indexes=[0])]))
    producers = described.topics[0].partitions[0].active_producers
    return producers[0].last_sequence if producers else -1


def high_watermark(c: WireClient, topic: str) -> int:
    resp: Any = c.call(1, 12, FetchRequest(max_wait_ms=0, min_bytes=0, topics=[FetchTopic(
        topic=topic, partitions=[FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=10_000_000)])]))
    return int(resp.responses[0].partitions[0].high_watermark)


def at_high_watermark(c: WireClient, topic: str, offset: int) -> bool:
    return high_watermark(c, topic) == offset


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
            peer = send_and_vanish(broker, produce_request(topic, pid, written))
            # Once the broker has closed the connection its handler is cancelled: from then
            # on the batch is in the log or never will be (a fixed wait for the high
            # watermark left a slow handler to append after the test had moved on).
            wait_until(partial(broker_logged, broker, "connection closed", peer), timeout=60, what=f"{peer} closed")
            appended_to = last_sequence(c, topic) + 1
            assert appended_to in (written, written + RECORDS_PER_BATCH)
            # What was appended becomes readable once its fsync round ends.
            wait_until(partial(at_high_watermark, c, topic, appended_to), what=f"high watermark {appended_to}")
            written = appended_to
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
