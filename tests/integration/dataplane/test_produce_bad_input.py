"""Invalid record batches get the right error code per partition; nothing of them is appended,
and the other partitions of the same request are unaffected."""

from __future__ import annotations

import struct
import time

import pytest

from protocol import record_batch as rb
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.fetch_response import FetchResponse
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from protocol.messages.produce_response import ProduceResponse
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient
from tests.names import unique

PRODUCE_VERSION = 9


def good_batch(value: bytes = b"ok") -> bytes:
    now = int(time.time() * 1000)
    return rb.build_batch([rb.Record(key=b"k", value=value, timestamp=now)])


def corrupt_crc(batch: bytes) -> bytes:
    buf = bytearray(batch)
    buf[-1] ^= 0xFF
    return bytes(buf)


def wrong_magic(batch: bytes) -> bytes:
    buf = bytearray(batch)
    buf[rb.MAGIC_OFFSET] = 1
    return bytes(buf)


def wrong_count(batch: bytes) -> bytes:
    # RecordsCount disagrees with LastOffsetDelta; the CRC is made right again so that
    # only the count check can catch it.
    buf = bytearray(batch)
    struct.pack_into(">i", buf, 57, 5)
    struct.pack_into(">I", buf, rb.CRC_OFFSET, rb.batch_crc(buf, 0, len(buf)))
    return bytes(buf)


def control_batch() -> bytes:
    return rb.build_control_batch(
        rb.ControlType.COMMIT, producer_id=1, producer_epoch=0, coordinator_epoch=0, timestamp=int(time.time() * 1000)
    )


BAD = {
    "corrupt CRC": (lambda: corrupt_crc(good_batch()), 2),  # CORRUPT_MESSAGE
    "wrong magic": (lambda: wrong_magic(good_batch()), 87),  # INVALID_RECORD (magic is checked before the CRC)
    "truncated batch": (lambda: good_batch()[:-3], 2),
    "record count disagrees with offset delta": (lambda: wrong_count(good_batch()), 87),
    "control batch from a client": (control_batch, 87),
    "batch above max.message.bytes": (lambda: good_batch(b"x" * 1_100_000), 10),  # MESSAGE_TOO_LARGE
    "two batches in one partition": (lambda: good_batch() + good_batch(), 87),
}


def produce(client: WireClient, topic: str, batches: dict[int, bytes]) -> dict[int, tuple[int, int]]:
    request = ProduceRequest(
        acks=-1,
        timeout_ms=10_000,
        topic_data=[
            TopicProduceData(
                name=topic, partition_data=[PartitionProduceData(index=p, records=b) for p, b in batches.items()]
            )
        ],
    )
    response = client.call(0, PRODUCE_VERSION, request)
    assert isinstance(response, ProduceResponse)
    return {p.index: (p.error_code, p.base_offset) for t in response.responses for p in t.partition_responses}


def fetch_offsets(client: WireClient, topic: str, partitions: int) -> dict[int, list[int]]:
    request = FetchRequest(
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=10_000_000,
        topics=[
            FetchTopic(
                topic=topic,
                partitions=[FetchPartition(partition=p, fetch_offset=0, partition_max_bytes=5_000_000) for p in range(partitions)],
            )
        ],
    )
    response = client.call(1, 11, request)
    assert isinstance(response, FetchResponse)
    return {
        p.partition_index: [h.base_offset for _, h in rb.iter_batches(p.records or b"")]
        for t in response.responses
        for p in t.partitions
    }


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_batch_refused_alone(broker: BrokerProcess, case: str) -> None:
    make, expected_code = BAD[case]
    topic = unique("bad")
    with WireClient(broker.bootstrap) as client:
        # Creates the topic with two partitions' worth of requests: partition 1 of an
        # auto-created topic does not exist, so use two single-partition requests instead.
        assert produce(client, topic, {0: good_batch(b"first")}) == {0: (0, 0)}
        result = produce(client, topic, {0: make()})
        assert result[0][0] == expected_code
        assert result[0][1] == -1
        assert produce(client, topic, {0: good_batch(b"after")}) == {0: (0, 1)}
        assert fetch_offsets(client, topic, 1) == {0: [0, 1]}


def test_bad_partition_does_not_spoil_the_others(broker: BrokerProcess, tmp_path) -> None:  # type: ignore[no-untyped-def]
    topic = unique("mixed")
    from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
    from tests.kafka_wire import WireClient as _W

    with _W(broker.bootstrap) as client:
        created = client.call(19, 5, CreateTopicsRequest(topics=[CreatableTopic(name=topic, num_partitions=3, replication_factor=1)], timeout_ms=10_000))
        assert created.topics[0].error_code == 0  # type: ignore[attr-defined]
        result = produce(client, topic, {0: good_batch(), 1: corrupt_crc(good_batch()), 2: good_batch()})
        assert result == {0: (0, 0), 1: (2, -1), 2: (0, 0)}
        assert fetch_offsets(client, topic, 3) == {0: [0], 1: [], 2: [0]}


def test_acks_zero_gets_no_response(broker: BrokerProcess) -> None:
    topic = unique("acks0")
    with WireClient(broker.bootstrap) as client:
        request = ProduceRequest(
            acks=0, timeout_ms=1000, topic_data=[TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=good_batch())])]
        )
        client.send(0, PRODUCE_VERSION, request)
        # The next response on the connection answers the next request, not the produce.
        from protocol.messages.api_versions_request import ApiVersionsRequest

        cid = client.send(18, 0, ApiVersionsRequest())
        got, _ = client.recv(18, 0)
        assert got == cid
        assert fetch_offsets(client, topic, 1) == {0: [0]}


def test_invalid_acks_value(broker: BrokerProcess) -> None:
    topic = unique("acks5")
    with WireClient(broker.bootstrap) as client:
        request = ProduceRequest(
            acks=5, timeout_ms=1000, topic_data=[TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=good_batch())])]
        )
        response = client.call(0, PRODUCE_VERSION, request)
        assert isinstance(response, ProduceResponse)
        assert response.responses[0].partition_responses[0].error_code == 21  # INVALID_REQUIRED_ACKS


def test_writes_to_internal_topics_are_refused(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as client:
        result = produce(client, "__consumer_offsets", {0: good_batch()})
        assert result[0][0] == 17  # INVALID_TOPIC_EXCEPTION
