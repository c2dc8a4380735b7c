"""KIP-467 per-record errors on the real broker: a batch with records the topic cannot
accept is refused whole with INVALID_RECORD (or INVALID_TIMESTAMP), the RecordErrors list
(batch index and message per bad record) and the partition's ErrorMessage (Produce v8+)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from protocol import record_batch as rb
from tests.broker_process import BrokerProcess
from tests.integration.dataplane.record_wire import E, batch, create_topic, fetched_offsets, produce
from tests.kafka_wire import WireClient

HOUR_MS = 3_600_000


def no_key(topic: str, partition: int = 0) -> str:
    return f"Compacted topic cannot accept message without key in topic partition {topic}-{partition}"


@pytest.mark.parametrize("compression", [rb.Compression.NONE, rb.Compression.LZ4], ids=lambda c: c.name)
def test_keyless_records_on_a_compacted_topic_are_named_by_index(
    broker: BrokerProcess, compression: rb.Compression
) -> None:
    with WireClient(broker.bootstrap) as c:
        topic = create_topic(c, 2, **{"cleanup.policy": "compact"})
        result = produce(c, topic, {0: batch([b"k0", None, b"k2", None], compression=compression),
                                    1: batch([b"k0", b"k1"], compression=compression)})
        bad = result[0]
        assert (bad.error_code, bad.base_offset) == (E.INVALID_RECORD, -1)
        assert [(e.batch_index, e.batch_index_error_message) for e in bad.record_errors] == [
            (1, no_key(topic)), (3, no_key(topic)),
        ]
        assert bad.error_message == (
            "One or more records have been rejected due to 2 record errors in total, and only showing the first "
            f"three errors at most: [RecordError(batchIndex=1, message='{no_key(topic)}'), "
            f"RecordError(batchIndex=3, message='{no_key(topic)}')]"
        )
        # The mixed batch is refused whole; the other partition of the request is written.
        assert (result[1].error_code, result[1].base_offset, result[1].record_errors) == (E.NONE, 0, [])
        assert fetched_offsets(c, topic, 0) == []
        assert produce(c, topic, {0: batch([b"a", b"b"], compression=compression)})[0].base_offset == 0
        assert fetched_offsets(c, topic, 0) == [0, 1]


def test_before_v8_only_the_error_code_is_sent(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as c:
        topic = create_topic(c, **{"cleanup.policy": "compact"})
        bad = produce(c, topic, {0: batch([None])}, version=7)[0]
        assert (bad.error_code, bad.record_errors, bad.error_message) == (E.INVALID_RECORD, [], None)


def test_out_of_range_timestamps_are_named_by_index(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as c:
        topic = create_topic(c, **{"message.timestamp.before.max.ms": str(HOUR_MS)})
        now = int(time.time() * 1000)
        old = now - 2 * HOUR_MS
        bad = produce(c, topic, {0: batch([b"a", b"b"], [old, now])})[0]
        assert bad.error_code == E.INVALID_TIMESTAMP
        assert bad.error_message == "One or more records have been rejected due to invalid timestamp"
        [error] = bad.record_errors
        assert error.batch_index == 0
        assert error.batch_index_error_message.startswith(
            f"Timestamp {old} of message with offset 0 is out of range. The timestamp should be within ["
        )
        assert fetched_offsets(c, topic) == []


def test_confluent_producer_gets_invalid_record_for_each_keyless_record(broker: BrokerProcess) -> None:
    from confluent_kafka import KafkaError, Producer

    with WireClient(broker.bootstrap) as c:
        topic = create_topic(c, **{"cleanup.policy": "compact"})
    reports: list[int | None] = []

    def delivered(err: KafkaError | None, msg: Any) -> None:
        reports.append(err.code() if err else None)

    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 50})
    for i in range(3):
        producer.produce(topic, value=b"v%d" % i, on_delivery=delivered)
    assert producer.flush(15) == 0
    assert reports == [KafkaError.INVALID_RECORD] * 3
    with WireClient(broker.bootstrap) as c:
        assert fetched_offsets(c, topic) == []


def test_a_batch_claiming_log_append_time_is_refused_on_a_log_append_time_topic(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as c:
        topic = create_topic(c, **{"message.timestamp.type": "LogAppendTime"})
        now = int(time.time() * 1000)
        marked = rb.build_batch([rb.Record(b"key", b"value", [], now)], timestamp_type=rb.TimestampType.LOG_APPEND_TIME)
        bad = produce(c, topic, {0: marked})[0]
        assert bad.error_code == E.INVALID_TIMESTAMP
        assert [(e.batch_index, e.batch_index_error_message) for e in bad.record_errors] == [
            (0, f"Invalid timestamp type in message DefaultRecord(offset=0, timestamp={now}, key=3 bytes, "
                "value=5 bytes). Producer should not set timestamp type to LogAppendTime."),
        ]
        assert fetched_offsets(c, topic) == []
