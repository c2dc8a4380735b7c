"""The `odradek` sink: exactly-once output under task failures, failed commits and replays."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession

from tests.broker_process import BrokerProcess
from tests.integration.pipeline.kafka_data import (
    create_topic,
    produce_txn,
    read_committed,
    transactional_producer,
)
from tests.integration.pipeline.query_start import caught_up
from tests.integration.pipeline.spark_status import failed_tasks


def test_batch_write_is_exactly_once_when_tasks_fail_before_and_after_commit(
    spark: SparkSession, broker: BrokerProcess, name: str
) -> None:
    topic = f"{name}-out"
    create_topic(broker.bootstrap, topic, 2)
    rows = [(f"k{i}", f"v{i}", i % 2) for i in range(200)]
    df = spark.createDataFrame(rows, "key string, value string, partition int").repartition(2)
    spark.sparkContext.setJobGroup(name, "batch write with injected failures")
    (
        df.write.format("odradek")
        .option("kafka.bootstrap.servers", broker.bootstrap)
        .option("topic", topic)
        # Spark partition 0 dies after its commit, 1 with its transaction open; both are retried.
        .option("odradek.test.injectFailure", "afterCommit:0:*,afterProduce:1:*")
        .mode("append")
        .save()
    )
    spark.sparkContext.setJobGroup("", "")
    assert failed_tasks(spark, name) == 2
    out = read_committed(broker.bootstrap, topic, 2)
    assert sorted((p, k, v) for p, _o, k, v in out) == sorted((p, k.encode(), v.encode()) for k, v, p in rows)


def stream_query(
    spark: SparkSession,
    bootstrap: str,
    source: str,
    sink: str,
    checkpoint: Path,
    extra: dict[str, str] | None = None,
    transform: str = "value",
) -> DataFrame:
    return (
        spark.readStream.format("odradek")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", source)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", "30")
        .load()
        .selectExpr("key", f"{transform} AS value", "partition")
    )


def run_stream(
    spark: SparkSession,
    bootstrap: str,
    source: str,
    sink: str,
    checkpoint: Path,
    extra: dict[str, str] | None = None,
    transform: str = "value",
) -> int:
    """Run until every available input is written, then stop; raises what the query failed with.
    Returns how many task attempts failed (and were retried)."""
    writer = (
        stream_query(spark, bootstrap, source, sink, checkpoint, extra, transform)
        .writeStream.format("odradek")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", sink)
        .option("checkpointLocation", str(checkpoint))
    )
    for key, value in (extra or {}).items():
        writer = writer.option(key, value)
    query = caught_up(writer.start)
    query.stop()
    return failed_tasks(spark, str(query.runId))


def fill_input(bootstrap: str, topic: str, txn_id: str, first: int, count: int) -> list[bytes]:
    """`count` committed values over 2 partitions, with an aborted transaction in between."""
    producer = transactional_producer(bootstrap, txn_id)
    values = [f"v{i}".encode() for i in range(first, first + count)]
    produce_txn(producer, topic, [(i % 2, None, v) for i, v in enumerate(values[: count // 2])], commit=True)
    produce_txn(producer, topic, [(i % 2, None, b"aborted") for i in range(10)], commit=False)
    produce_txn(producer, topic, [(i % 2, None, v) for i, v in enumerate(values[count // 2 :])], commit=True)
    return values


def forget_commit(checkpoint: Path, batch_id: int) -> None:
    """Make Spark believe batch `batch_id` never committed, as after a crash inside its commit."""
    (checkpoint / "commits" / str(batch_id)).unlink()
    (checkpoint / "commits" / f".{batch_id}.crc").unlink(missing_ok=True)


def test_stream_exactly_once_through_task_failures_failed_commit_and_replay(
    spark: SparkSession, broker: BrokerProcess, name: str, tmp_path: Path
) -> None:
    source, sink = f"{name}-in", f"{name}-out"
    create_topic(broker.bootstrap, source, 2)
    create_topic(broker.bootstrap, sink, 2)
    checkpoint = tmp_path / "checkpoint"
    expected = fill_input(broker.bootstrap, source, f"{name}-gen", 0, 100)

    # Batch 1: Spark partition 0 dies after committing, partition 1 before; both are retried.
    failures = run_stream(
        spark,
        broker.bootstrap,
        source,
        sink,
        checkpoint,
        {"odradek.test.injectFailure": "afterCommit:0:1,afterProduce:1:1"},
    )
    assert failures == 2
    assert sorted(v for *_, v in read_committed(broker.bootstrap, sink, 2)) == sorted(expected)
    batches = sorted(int(p.name) for p in (checkpoint / "commits").iterdir() if p.name.isdigit())
    assert len(batches) >= 3  # 120 offsets in steps of at most 30

    # The driver's commit of the next batch raises: the query fails after every task committed.
    expected += fill_input(broker.bootstrap, source, f"{name}-gen", 100, 40)
    failing = batches[-1] + 1
    with pytest.raises(Exception, match="injected failure"):
        run_stream(
            spark,
            broker.bootstrap,
            source,
            sink,
            checkpoint,
            {"odradek.test.injectFailure": f"driverCommit:{failing}"},
        )
    assert not (checkpoint / "commits" / str(failing)).exists()
    # The restart replays that batch: every partition finds its marker and writes nothing.
    run_stream(spark, broker.bootstrap, source, sink, checkpoint)
    assert (checkpoint / "commits" / str(failing)).exists()
    assert sorted(v for *_, v in read_committed(broker.bootstrap, sink, 2)) == sorted(expected)

    # Forget that the last batch committed: Spark replays it, and nothing is written twice.
    last = max(int(p.name) for p in (checkpoint / "commits").iterdir() if p.name.isdigit())
    forget_commit(checkpoint, last)
    assert run_stream(spark, broker.bootstrap, source, sink, checkpoint) == 0
    assert sorted(v for *_, v in read_committed(broker.bootstrap, sink, 2)) == sorted(expected)

    # A replay whose rows differ from what was committed fails loudly.
    forget_commit(checkpoint, last)
    with pytest.raises(Exception, match="NonDeterministicReplayError"):
        run_stream(
            spark, broker.bootstrap, source, sink, checkpoint, transform="upper(cast(value AS string))"
        )
    assert sorted(v for *_, v in read_committed(broker.bootstrap, sink, 2)) == sorted(expected)
