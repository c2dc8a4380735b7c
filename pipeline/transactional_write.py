"""Executor side of the sink: one Spark task's rows in one Kafka transaction, with its marker.

Exactly once, per task (design A of the connector): `init_transactions` on the task's stable
transactional.id fences every older attempt and aborts what it left open; the marker says
whether this batch already committed for this Spark partition, in which case the replay is
skipped; otherwise rows and marker commit together."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa
from confluent_kafka import Consumer as KafkaConsumer
from confluent_kafka import KafkaError, KafkaException, Message, Producer, TopicPartition
from pyspark.sql.datasource import WriterCommitMessage

from pipeline.failure_injection import maybe_fail
from pipeline.markers import Marker, RowDigest, ensure_marker_partition, marker_group, read_marker
from pipeline.sink_options import SinkOptions

log = logging.getLogger(__name__)

TIMEOUT_S = 60.0
# Rows produced between two polls of the producer (its delivery reports, its queue).
POLL_EVERY = 1000
# Key and value columns `plain_columns` takes as they are (to_pylist gives bytes or None).
_BYTES_TYPES = (pa.binary(), pa.large_binary())
_TEXT_TYPES = (pa.string(), pa.large_string())


class NonDeterministicReplayError(RuntimeError):
    """A replayed batch produced other rows than the committed one: the query is not deterministic."""


@dataclass
class SinkCommitMessage(WriterCommitMessage):
    transactional_id: str
    batch_id: int
    spark_partition: int
    rows: int
    skipped: bool


def transactional_id(prefix: str, spark_partition: int) -> str:
    return f"{prefix}-{spark_partition}"


def write_task(
    options: SinkOptions,
    batches: Iterator[pa.RecordBatch],
    prefix: str,
    batch_id: int,
    spark_partition: int,
    attempt: int,
) -> SinkCommitMessage:
    ensure_marker_partition(options, spark_partition)
    txn_id = transactional_id(prefix, spark_partition)
    failures: list[KafkaError] = []

    def on_delivery(err: KafkaError | None, _msg: Message) -> None:
        if err is not None:
            failures.append(err)

    producer = Producer(
        {
            "linger.ms": "5",
            **options.client_config(),
            "transactional.id": txn_id,
            "transaction.timeout.ms": str(options.transaction_timeout_ms),
            # Reports for failures only: a Python call per row is a cost the rows' bytes are not.
            "on_delivery": on_delivery,
            "delivery.report.only.error": True,
        }
    )
    producer.init_transactions(TIMEOUT_S)
    marker = read_marker(options, prefix, spark_partition)
    if marker is not None and marker.batch_id >= batch_id:
        return skip_replay(options, batches, marker, txn_id, batch_id, spark_partition)

    digest = RowDigest()
    producer.begin_transaction()
    for batch in batches:
        plain = plain_columns(batch, options.topic)
        if plain is not None:
            topic, keys, values = plain
            digest.add_rows(topic, keys, values)
            _produce_plain(producer, topic, keys, values)
            continue
        for n, (topic, partition, key, value, headers) in enumerate(rows_of(batch, options.topic)):
            digest.add(topic, partition, key, value, headers)
            while True:
                try:
                    producer.produce(
                        topic,
                        value=value,
                        key=key,
                        partition=partition,  # -1: RD_KAFKA_PARTITION_UA, the partitioner picks
                        headers=list(headers) or None,
                    )
                    break
                except BufferError:  # local queue full: let deliveries drain
                    producer.poll(0.1)
            if n % POLL_EVERY == 0:
                producer.poll(0)
    producer.flush(TIMEOUT_S)
    if failures:
        producer.abort_transaction(TIMEOUT_S)
        raise KafkaException(failures[0])
    done = Marker(batch_id, digest.rows, digest.hexdigest())
    group = KafkaConsumer(
        {**options.client_config(), "group.id": marker_group(prefix), "enable.auto.commit": False}
    )
    try:
        offsets = [TopicPartition(options.marker_topic, spark_partition, batch_id, metadata=done.metadata())]
        producer.send_offsets_to_transaction(offsets, group.consumer_group_metadata(), TIMEOUT_S)
    finally:
        group.close()
    maybe_fail(options.inject_failure, "afterProduce", batch_id, spark_partition, attempt)
    producer.commit_transaction(TIMEOUT_S)
    maybe_fail(options.inject_failure, "afterCommit", batch_id, spark_partition, attempt)
    return SinkCommitMessage(txn_id, batch_id, spark_partition, digest.rows, skipped=False)


def skip_replay(
    options: SinkOptions,
    batches: Iterator[pa.RecordBatch],
    marker: Marker,
    txn_id: str,
    batch_id: int,
    spark_partition: int,
) -> SinkCommitMessage:
    """A replay of a committed batch writes nothing, but its rows must be those committed."""
    if marker.batch_id == batch_id:
        digest = RowDigest()
        for batch in batches:
            plain = plain_columns(batch, options.topic)
            if plain is not None:
                digest.add_rows(*plain)
                continue
            for row in rows_of(batch, options.topic):
                digest.add(*row)
        if (digest.rows, digest.hexdigest()) != (marker.rows, marker.digest):
            raise NonDeterministicReplayError(
                f"batch {batch_id} of Spark partition {spark_partition} was committed with {marker.rows} rows "
                f"(hash {marker.digest}) but its replay has {digest.rows} rows (hash {digest.hexdigest()}): "
                "the query is not deterministic, so exactly-once output cannot be kept"
            )
    else:
        log.warning(
            "batch %d of %s is older than the committed batch %d: skipped", batch_id, txn_id, marker.batch_id
        )
    return SinkCommitMessage(txn_id, batch_id, spark_partition, marker.rows, skipped=True)


Row = tuple[str, int, bytes | None, bytes | None, list[tuple[str, bytes]]]


def plain_columns(
    batch: pa.RecordBatch, topic_option: str | None
) -> tuple[str, list[bytes | None], list[bytes | None]] | None:
    """(topic, keys, values) of a batch whose rows all go to the `topic` option's topic with
    no partition and no headers, each column converted at once; None when a row needs
    `rows_of` (a topic, partition or headers column, or keys/values of another type)."""
    names = {name.lower(): i for i, name in enumerate(batch.schema.names)}
    if topic_option is None or names.keys() & {"partition", "headers"} or "value" not in names:
        return None
    columns: list[list[bytes | None]] = []
    for name in ("key", "value"):
        if name not in names:
            columns.append([None] * batch.num_rows)
            continue
        column = batch.column(names[name])
        if column.type in _TEXT_TYPES:
            column = column.cast(pa.binary() if column.type == pa.string() else pa.large_binary())
        elif column.type not in _BYTES_TYPES:
            return None
        columns.append(column.to_pylist())
    return topic_option, columns[0], columns[1]


def _produce_plain(
    producer: Producer, topic: str, keys: list[bytes | None], values: list[bytes | None]
) -> None:
    produce, poll = producer.produce, producer.poll
    for n, (key, value) in enumerate(zip(keys, values, strict=True)):
        while True:
            try:
                produce(topic, value, key)
                break
            except BufferError:  # local queue full: let deliveries drain
                poll(0.1)
        if n % POLL_EVERY == 0:
            poll(0)


def rows_of(batch: pa.RecordBatch, topic_option: str | None) -> Iterator[Row]:
    """(topic, partition or -1, key, value, headers) per row; the `topic` option overrides the
    column, as in Spark's Kafka sink."""
    n = batch.num_rows
    names = {name.lower(): i for i, name in enumerate(batch.schema.names)}

    def column(name: str) -> list[object]:
        return batch.column(names[name]).to_pylist() if name in names else [None] * n

    values, keys, topics, partitions, headers = (
        column(c) for c in ("value", "key", "topic", "partition", "headers")
    )
    for i in range(n):
        topic = topic_option or topics[i]
        if not topic:
            raise ValueError("a row has a null topic and the option 'topic' is not set")
        partition = partitions[i]
        yield (
            str(topic),
            -1 if partition is None else int(partition),  # type: ignore[call-overload]
            _bytes(keys[i]),
            _bytes(values[i]),
            [(h["key"], h["value"]) for h in headers[i]] if headers[i] else [],  # type: ignore[attr-defined]
        )


def _bytes(value: object) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    raise TypeError(f"cannot write {type(value).__name__} as a key or value")
