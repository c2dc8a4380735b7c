"""Executor side of the source: read one offset range with a read_committed consumer, as Arrow batches."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pyarrow as pa
from confluent_kafka import OFFSET_INVALID, Consumer, KafkaError, Message
from confluent_kafka import TopicPartition as KafkaTopicPartition

from pipeline.options import SourceOptions
from pipeline.ranges import OffsetRange
from pipeline.schema import arrow_schema

log = logging.getLogger(__name__)

# Rows held before an Arrow batch goes out: a task's memory is bounded whatever its range.
BATCH_ROWS = 8192
POLL_S = 0.5
# Kafka's TimestampType ids; librdkafka numbers them one higher (0 = not available).
TIMESTAMP_TYPE = {0: -1, 1: 0, 2: 1}


class DataLossError(RuntimeError):
    """Offsets planned for reading were deleted (retention, DeleteRecords) before they were read."""


def read_range(options: SourceOptions, r: OffsetRange) -> Iterator[pa.RecordBatch]:
    consumer = Consumer(
        {
            **options.consumer_config(),
            # librdkafka wants a group.id even for assign(); nothing is ever committed to it.
            "group.id": f"odradek-spark-reader-{r.topic}",
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "isolation.level": "read_committed",
            "auto.offset.reset": "error",
            "enable.partition.eof": True,
        }
    )
    try:
        yield from _consume(consumer, options, r)
    finally:
        consumer.close()


def _consume(consumer: Consumer, options: SourceOptions, r: OffsetRange) -> Iterator[pa.RecordBatch]:
    schema = arrow_schema(options.include_headers)
    tp = KafkaTopicPartition(r.topic, r.partition, r.start)
    consumer.assign([tp])
    rows: list[Message] = []
    deadline = time.monotonic() + options.poll_timeout_ms / 1000
    while True:
        done = False
        for msg in consumer.consume(num_messages=BATCH_ROWS, timeout=POLL_S):
            err = msg.error()
            offset = msg.offset() or 0
            if err is None:
                if offset >= r.end:
                    done = True
                    break
                rows.append(msg)
            elif err.code() == KafkaError._PARTITION_EOF:
                # At the end of committed data: a range planned below the LSO is complete once the
                # consumer gets there, even if its last offsets were markers or aborted records.
                if offset >= r.end:
                    done = True
            elif err.code() == KafkaError._AUTO_OFFSET_RESET or err.code() == KafkaError.OFFSET_OUT_OF_RANGE:
                _data_lost(consumer, options, r, tp)
            else:
                raise RuntimeError(f"reading {r.topic}-{r.partition}: {err}")
        if len(rows) >= BATCH_ROWS:
            yield _to_batch(rows, schema, options.include_headers)
            rows = []
            deadline = time.monotonic() + options.poll_timeout_ms / 1000
        if done or _position(consumer, tp) >= r.end:
            break
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"no progress reading {r.topic}-{r.partition} [{r.start}, {r.end}) within "
                f"kafkaConsumer.pollTimeoutMs={options.poll_timeout_ms}"
            )
    if rows:
        yield _to_batch(rows, schema, options.include_headers)


def _position(consumer: Consumer, tp: KafkaTopicPartition) -> int:
    """The next offset the consumer will return; librdkafka moves it past control records and
    aborted batches too, which is what finishes a range ending on them."""
    pos = consumer.position([KafkaTopicPartition(tp.topic, tp.partition)])[0].offset
    return -1 if pos == OFFSET_INVALID else int(pos)


def _data_lost(consumer: Consumer, options: SourceOptions, r: OffsetRange, tp: KafkaTopicPartition) -> None:
    low, _high = consumer.get_watermark_offsets(KafkaTopicPartition(r.topic, r.partition), timeout=30)
    message = (
        f"offsets [{r.start}, {low}) of {r.topic}-{r.partition} were deleted before they were read "
        f"(log start offset is now {low})"
    )
    if options.fail_on_data_loss or low <= r.start:
        raise DataLossError(message + "; set failOnDataLoss=false to skip lost data")
    log.warning("%s; skipped because failOnDataLoss=false", message)
    consumer.assign([KafkaTopicPartition(r.topic, r.partition, min(low, r.end))])


def _to_batch(rows: list[Message], schema: pa.Schema, include_headers: bool) -> pa.RecordBatch:
    timestamps = [m.timestamp() for m in rows]
    columns: list[list[object]] = [
        [m.key() for m in rows],
        [m.value() for m in rows],
        [m.topic() for m in rows],
        [m.partition() for m in rows],
        [m.offset() for m in rows],
        [ts * 1000 if kind else None for kind, ts in timestamps],  # ms -> the column's microseconds
        [TIMESTAMP_TYPE.get(kind, -1) for kind, _ts in timestamps],
    ]
    if include_headers:
        columns.append([[{"key": h[0], "value": h[1]} for h in (m.headers() or [])] for m in rows])
    arrays = [
        pa.array(c, type=pa.int64()).cast(f.type) if f.name == "timestamp" else pa.array(c, type=f.type)
        for c, f in zip(columns, schema, strict=True)
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
