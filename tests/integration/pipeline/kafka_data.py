"""Test data written and read back with confluent-kafka, independent of the connector."""

from __future__ import annotations

from collections.abc import Iterable

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])[topic].result(30)


# For a producer whose transaction a test leaves open across a Spark job: longer than the
# tests' own limit (pytest-timeout's 300 s in pyproject.toml), below the broker's
# transaction.max.timeout.ms (15 min). At librdkafka's default 60 s a Spark job on a loaded
# machine outlasted it: the coordinator aborted the transaction (fencing the producer), and
# "open" records were skipped as aborted ones.
HELD_OPEN_TIMEOUT_MS = 600_000


def transactional_producer(bootstrap: str, txn_id: str, transaction_timeout_ms: int | None = None) -> Producer:
    config: dict[str, str | int] = {"bootstrap.servers": bootstrap, "transactional.id": txn_id, "linger.ms": 0}
    if transaction_timeout_ms is not None:
        config["transaction.timeout.ms"] = transaction_timeout_ms
    producer = Producer(config)
    producer.init_transactions(30)
    return producer


def produce_txn(
    producer: Producer, topic: str, rows: Iterable[tuple[int, bytes | None, bytes]], commit: bool | None
) -> None:
    """One transaction of (partition, key, value) rows: committed, aborted, or (None) left open."""
    producer.begin_transaction()
    for partition, key, value in rows:
        producer.produce(topic, value=value, key=key, partition=partition)
    producer.flush(30)
    if commit is True:
        producer.commit_transaction(30)
    elif commit is False:
        producer.abort_transaction(30)


def read_committed(bootstrap: str, topic: str, partitions: int) -> list[tuple[int, int, bytes | None, bytes]]:
    """Every committed record of `topic` as (partition, offset, key, value), read to the LSO."""
    return read_records(bootstrap, topic, partitions, "read_committed")


def read_records(
    bootstrap: str, topic: str, partitions: int, isolation: str
) -> list[tuple[int, int, bytes | None, bytes]]:
    """The records of `topic` a consumer of that isolation level gets, to the LSO or the HW."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "check",
            "isolation.level": isolation,
            "enable.partition.eof": True,
            "enable.auto.commit": False,
        }
    )
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out: list[tuple[int, int, bytes | None, bytes]] = []
    at_end: set[int] = set()
    while len(at_end) < partitions:
        for msg in consumer.consume(1000, timeout=1.0):
            if msg.error() is None:
                out.append((msg.partition(), msg.offset(), msg.key(), msg.value()))
            elif msg.error().code() == -191:  # _PARTITION_EOF
                at_end.add(msg.partition())
            else:
                raise RuntimeError(str(msg.error()))
    consumer.close()
    return sorted(out)
