"""Streaming reads through the `odradek` source: offsets only in Spark's checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

from confluent_kafka.admin import AdminClient, NewPartitions
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming import StreamingQuery

from tests.broker_process import BrokerProcess
from tests.integration.pipeline.kafka_data import (
    HELD_OPEN_TIMEOUT_MS,
    create_topic,
    produce_txn,
    transactional_producer,
)
from tests.integration.pipeline.query_start import caught_up

Seen = list[tuple[int, int, int, bytes]]


def run(spark: SparkSession, bootstrap: str, topic: str, checkpoint: Path, seen: Seen) -> list[dict]:
    """Read all that is available into `seen` as (batch, partition, offset, value); the progress."""

    def collect(df: DataFrame, batch_id: int) -> None:
        seen.extend((batch_id, r.partition, r.offset, r.value) for r in df.collect())

    def start() -> StreamingQuery:
        return (
            spark.readStream.format("odradek")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", topic)
            .option("startingOffsets", "earliest")
            .option("maxOffsetsPerTrigger", "15")
            .load()
            .writeStream.foreachBatch(collect)
            .option("checkpointLocation", str(checkpoint))
            .start()
        )

    query = caught_up(start)
    query.stop()
    return [json.loads(p.json) for p in query.recentProgress]


def source_offsets(progress: dict, which: str) -> dict:
    """A micro-batch's offsets as the progress reports them; the first batch has no start."""
    raw = progress["sources"][0][which]
    return (json.loads(raw) if isinstance(raw, str) else raw) or {}


def moved(progress: dict) -> bool:
    """A micro-batch that ran (a trigger that found no new offsets reports start == end)."""
    return source_offsets(progress, "startOffset") != source_offsets(progress, "endOffset")


def test_stream_resumes_at_the_checkpointed_offsets_and_picks_up_new_partitions(
    spark: SparkSession, broker: BrokerProcess, name: str, tmp_path: Path
) -> None:
    topic = f"{name}-in"
    create_topic(broker.bootstrap, topic, 2)
    producer = transactional_producer(broker.bootstrap, f"{name}-gen")
    produce_txn(producer, topic, [(i % 2, None, f"a{i}".encode()) for i in range(40)], commit=True)
    produce_txn(producer, topic, [(0, None, b"aborted")] * 4, commit=False)
    pending = transactional_producer(broker.bootstrap, f"{name}-open", HELD_OPEN_TIMEOUT_MS)
    produce_txn(pending, topic, [(1, None, f"open{i}".encode()) for i in range(3)], commit=None)
    checkpoint = tmp_path / "checkpoint"

    first: Seen = []
    progress = [p for p in run(spark, broker.bootstrap, topic, checkpoint, first) if moved(p)]
    assert sorted(v for *_, v in first) == sorted(f"a{i}".encode() for i in range(40))
    # Partition 0: 20 records, commit marker, 4 aborted records, abort marker. Partition 1: 20
    # records and a commit marker, then the open transaction, which holds the LSO at 21.
    end = source_offsets(progress[-1], "endOffset")
    assert end == {topic: {"0": 26, "1": 21}}
    last_offsets = json.loads(
        (checkpoint / "offsets" / str(progress[-1]["batchId"])).read_text().splitlines()[-1]
    )
    assert last_offsets == end
    for p in progress:  # maxOffsetsPerTrigger bounds every micro-batch
        start, stop = source_offsets(p, "startOffset"), source_offsets(p, "endOffset")
        assert sum(stop[topic][k] - start.get(topic, {}).get(k, 0) for k in stop[topic]) <= 15

    pending.commit_transaction(30)
    produce_txn(producer, topic, [(i % 2, None, f"b{i}".encode()) for i in range(10)], commit=True)
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_partitions([NewPartitions(topic, 3)])[topic].result(30)
    # A new producer: the old one's metadata does not know partition 2 yet.
    grown = transactional_producer(broker.bootstrap, f"{name}-gen2")
    produce_txn(grown, topic, [(2, None, f"c{i}".encode()) for i in range(5)], commit=True)

    second: Seen = []
    progress2 = [p for p in run(spark, broker.bootstrap, topic, checkpoint, second) if moved(p)]
    assert source_offsets(progress2[0], "startOffset") == end
    assert min(b for b, *_ in second) == progress[-1]["batchId"] + 1
    expected = [f"open{i}" for i in range(3)] + [f"b{i}" for i in range(10)] + [f"c{i}" for i in range(5)]
    assert sorted(v for *_, v in second) == sorted(e.encode() for e in expected)
    assert {(p, o) for _, p, o, _ in first}.isdisjoint({(p, o) for _, p, o, _ in second})
