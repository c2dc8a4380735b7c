"""Executor side of the source: read one offset range with a read_committed consumer, as Arrow batches."""

from __future__ import annotations

import itertools
import logging
import operator
import time
from collections.abc import Iterator
from typing import Any, cast

import pyarrow as pa
import pyarrow.compute as pc
from confluent_kafka import OFFSET_INVALID, Consumer, KafkaError, Message
from confluent_kafka import TopicPartition as KafkaTopicPartition

from pipeline.options import SourceOptions
from pipeline.ranges import OffsetRange
from pipeline.schema import HEADER_TYPE, arrow_schema

log = logging.getLogger(__name__)

# Rows held before an Arrow batch goes out: a task's memory is bounded whatever its range.
BATCH_ROWS = 8192
POLL_S = 0.5
# librdkafka's timestamp types are Kafka's TimestampType ids plus one; 0 is "not available",
# whose rows have a null timestamp (Kafka's NO_TIMESTAMP_TYPE, id -1).
TIMESTAMP_NOT_AVAILABLE = 0
FIRST, SECOND = operator.itemgetter(0), operator.itemgetter(1)


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
    position = r.start
    deadline = time.monotonic() + options.poll_timeout_ms / 1000
    while True:
        done = False
        # consume() returns once it has num_messages or after its whole timeout: asking for more
        # than the range holds would wait POLL_S at the end of every range. Offsets past `position`
        # are records, unless markers or aborted records sit among them (then the wait is paid).
        wanted = min(BATCH_ROWS, max(1, r.end - position))
        msgs = consumer.consume(num_messages=wanted, timeout=POLL_S)
        if _all_records_below(msgs, r.end):
            rows += msgs
        else:
            for msg in msgs:
                err = msg.error()
                offset = msg.offset() or 0
                if err is None:
                    if offset >= r.end:
                        done = True
                        break
                    rows.append(msg)
                elif err.code() == KafkaError._PARTITION_EOF:
                    # At the end of committed data: a range planned below the LSO is complete once
                    # the consumer gets there, even if its last offsets were markers or aborted records.
                    if offset >= r.end:
                        done = True
                elif err.code() in (KafkaError._AUTO_OFFSET_RESET, KafkaError.OFFSET_OUT_OF_RANGE):
                    _data_lost(consumer, options, r, tp)
                else:
                    raise RuntimeError(f"reading {r.topic}-{r.partition}: {err}")
        if len(rows) >= BATCH_ROWS:
            yield _to_batch(rows, r, schema, options.include_headers)
            rows = []
            deadline = time.monotonic() + options.poll_timeout_ms / 1000
        position = max(position, _position(consumer, tp))
        if done or position >= r.end:
            break
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"no progress reading {r.topic}-{r.partition} [{r.start}, {r.end}) within "
                f"kafkaConsumer.pollTimeoutMs={options.poll_timeout_ms}"
            )
    if rows:
        yield _to_batch(rows, r, schema, options.include_headers)


def _all_records_below(msgs: list[Message], end: int) -> bool:
    """Whether every message of a `consume()` is a record before `end`: the common case, checked
    without a Python-level step per message (`map` over the C methods); any other batch (an
    event such as the end of the partition, the range's last records) goes through the loop."""
    # By identity: KafkaError's == against None leaves a Python error pending (confluent-kafka 2.16).
    if not msgs or not all(map(operator.is_, map(Message.error, msgs), itertools.repeat(None))):
        return False
    # A record (no error) always has an offset.
    return max(cast("list[int]", list(map(Message.offset, msgs)))) < end


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


def _to_batch(
    rows: list[Message], r: OffsetRange, schema: pa.Schema, include_headers: bool
) -> pa.RecordBatch:
    """The rows as columns: one C-level pass per field the records vary in (`map` over the
    Message methods), topic and partition repeated from the range (one partition is assigned)."""
    n = len(rows)
    timestamps = list(map(Message.timestamp, rows))  # (type, ms) pairs
    kind = pa.array(list(map(FIRST, timestamps)), type=pa.int32())
    # ms -> the column's microseconds; checked, as building the column from Python ints was.
    micros = pc.multiply_checked(pa.array(list(map(SECOND, timestamps)), type=pa.int64()), 1000)
    if pc.any(pc.equal(kind, TIMESTAMP_NOT_AVAILABLE)).as_py():
        micros = pc.if_else(pc.equal(kind, TIMESTAMP_NOT_AVAILABLE), pa.scalar(None, pa.int64()), micros)
    arrays = [
        pa.array(list(map(Message.key, rows)), type=pa.binary()),
        pa.array(list(map(Message.value, rows)), type=pa.binary()),
        pa.repeat(pa.scalar(r.topic, pa.string()), n),
        pa.repeat(pa.scalar(r.partition, pa.int32()), n),
        pa.array(list(map(Message.offset, rows)), type=pa.int64()),
        micros.cast(schema.field("timestamp").type),
        pc.subtract(kind, 1),  # librdkafka's 0 (not available), 1, 2 -> Kafka's -1, 0, 1
    ]
    if include_headers:
        arrays.append(_headers(list(map(Message.headers, rows))))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _headers(per_row: list[Any]) -> pa.Array:
    """Each row's headers, in order (an empty list for none), as one list<struct> column."""
    offsets = list(itertools.accumulate((len(h) if h else 0 for h in per_row), initial=0))
    pairs = [pair for h in per_row if h for pair in h]
    keys, values = zip(*pairs, strict=True) if pairs else ((), ())
    entries = pa.StructArray.from_arrays(
        [pa.array(keys, type=pa.string()), pa.array(values, type=pa.binary())],
        fields=list(HEADER_TYPE.value_type),
    )
    return pa.ListArray.from_arrays(pa.array(offsets, type=pa.int32()), entries, type=HEADER_TYPE)
