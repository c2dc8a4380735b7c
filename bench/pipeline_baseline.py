"""What users write without the connector (`pipeline/`), the baseline of the pipeline rows:
a `foreachBatch` / `foreachPartition` with a plain confluent-kafka producer (at-least-once:
a replayed batch is written again), and a plain consumer per partition in `mapPartitions`
to read. Imported by Spark's Python workers, so it depends on nothing else of the bench."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition


def produce_rows(bootstrap: str, topic: str, rows: Iterable[Any]) -> None:
    """One Spark partition's rows (with `key` and `value`) through a plain producer, waiting
    for every acknowledgement: the at-least-once path."""
    failures: list[str] = []

    def on_delivery(err: Any, _msg: Any) -> None:
        if err is not None:
            failures.append(err.str())

    producer = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 5, "delivery.report.only.error": True, "log_level": 3}
    )
    for n, row in enumerate(rows):
        while True:
            try:
                producer.produce(topic, value=row["value"], key=row["key"], on_delivery=on_delivery)
                break
            except BufferError:
                producer.poll(0.01)
        if n % 1000 == 0:
            producer.poll(0)
    remaining = producer.flush(60)
    if remaining or failures:
        raise RuntimeError(f"{remaining} records unacknowledged, failures: {failures[:1]}")


def foreach_partition_writer(bootstrap: str, topic: str) -> Any:
    return partial(produce_rows, bootstrap, topic)


def write_batch(bootstrap: str, topic: str, df: Any, _batch_id: int) -> None:
    """A `foreachBatch` function: every partition of the micro-batch through `produce_rows`."""
    df.foreachPartition(foreach_partition_writer(bootstrap, topic))


def foreach_batch_writer(bootstrap: str, topic: str) -> Any:
    return partial(write_batch, bootstrap, topic)


def consume_partition(bootstrap: str, topic: str, partitions: Iterable[int]) -> Iterable[tuple[bytes | None, bytes]]:
    """(key, value) of every record of the given partitions, from offset 0 to the end as it
    was when the task started, read with a plain consumer (no group)."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "bench-baseline", "enable.auto.commit": False, "log_level": 3}
    )
    try:
        for partition in partitions:
            _low, end = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=30)
            consumer.assign([TopicPartition(topic, partition, 0)])
            position = 0
            while position < end:
                for msg in consumer.consume(10_000, timeout=1.0):
                    if msg.error() is not None:
                        raise RuntimeError(msg.error().str())
                    position = msg.offset() + 1
                    yield msg.key(), msg.value()
    finally:
        consumer.close()


def partition_reader(bootstrap: str, topic: str) -> Any:
    return partial(consume_partition, bootstrap, topic)
