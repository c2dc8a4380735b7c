"""The reader's Arrow batches (pipeline/reading.py `_to_batch`): every column of Spark's Kafka
source row, from confluent-kafka Messages, including the cases a broker rarely produces (no
timestamp, LogAppendTime, null keys and values, headers with null values)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pyarrow as pa
import pytest
from confluent_kafka import KafkaError, Message

from pipeline.ranges import OffsetRange
from pipeline.reading import _all_records_below, _to_batch
from pipeline.schema import arrow_schema

RANGE = OffsetRange("orders", 3, 10, 20)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _messages() -> list[Message]:
    return [
        Message(topic="orders", partition=3, offset=10, key=b"k", value=b"v", timestamp=(1, 1_700_000_000_123)),
        Message(topic="orders", partition=3, offset=11, key=None, value=None, timestamp=(2, 5),
                headers=[("a", None), ("b", b"x"), ("a", b"")]),
        Message(topic="orders", partition=3, offset=13, key=b"", value=b"w", timestamp=(0, -1), headers=[]),
    ]


def test_columns_are_those_of_spark_kafka_source_rows() -> None:
    batch = _to_batch(_messages(), RANGE, arrow_schema(True), include_headers=True)
    assert batch.schema == arrow_schema(True)
    assert batch.to_pylist() == [
        {"key": b"k", "value": b"v", "topic": "orders", "partition": 3, "offset": 10,
         "timestamp": EPOCH + timedelta(milliseconds=1_700_000_000_123), "timestampType": 0, "headers": []},
        {"key": None, "value": None, "topic": "orders", "partition": 3, "offset": 11,
         "timestamp": EPOCH + timedelta(milliseconds=5), "timestampType": 1,
         "headers": [{"key": "a", "value": None}, {"key": "b", "value": b"x"}, {"key": "a", "value": b""}]},
        {"key": b"", "value": b"w", "topic": "orders", "partition": 3, "offset": 13,
         "timestamp": None, "timestampType": -1, "headers": []},
    ]
    without = _to_batch(_messages(), RANGE, arrow_schema(False), include_headers=False)
    assert without.schema == arrow_schema(False)
    assert without.to_pylist() == [{k: v for k, v in row.items() if k != "headers"} for row in batch.to_pylist()]


def test_a_timestamp_beyond_the_column_fails_rather_than_wraps() -> None:
    huge = Message(topic="orders", partition=3, offset=10, key=None, value=b"v", timestamp=(1, 2**62))
    with pytest.raises(pa.ArrowInvalid, match="overflow"):
        _to_batch([huge], RANGE, arrow_schema(False), include_headers=False)


def test_only_a_batch_of_records_before_the_end_skips_the_per_message_loop() -> None:
    records = _messages()
    assert _all_records_below(records, 14)
    assert not _all_records_below(records, 13)  # the last record is the range's end
    assert not _all_records_below([], 14)
    eof = Message(topic="orders", partition=3, offset=13, error=KafkaError(KafkaError._PARTITION_EOF))
    assert not _all_records_below([*records[:2], eof], 14)
