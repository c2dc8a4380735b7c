"""The sink's `transactionMode=microBatch` (KIP-939 two-phase commit): a micro-batch becomes
visible whole, and stays exactly-once when the driver is SIGKILLed between prepare and commit."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.streaming import StreamingQuery

from odradek.cli.partitioner import partition_for_key
from protocol.messages.list_transactions_request import ListTransactionsRequest
from tests.broker_process import BrokerProcess, shared_broker
from tests.integration.pipeline.kafka_data import (
    create_topic,
    produce_txn,
    read_committed,
    read_records,
    transactional_producer,
)
from tests.integration.pipeline.query_start import ATTEMPTS, connect_back_failed
from tests.integration.pipeline.spark_status import failed_tasks
from tests.integration.pipeline.stream_jobs import committed_batches, kill_job, start_job, wait_for
from tests.kafka_wire import WireClient

UNFINISHED = ["Ongoing", "PrepareCommit", "PrepareAbort"]


@pytest.fixture(scope="module")
def two_pc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    yield from shared_broker(
        tmp_path_factory.mktemp("two-pc") / "data", {"transaction.two.phase.commit.enable": "true"}
    )


def fill_source(bootstrap: str, topic: str, txn_id: str, transactions: int) -> list[bytes]:
    """`transactions` committed transactions of 24 values over 2 partitions, every fourth one
    followed by an aborted one."""
    producer = transactional_producer(bootstrap, txn_id)
    values: list[bytes] = []
    for t in range(transactions):
        rows = [(i % 2, None, f"{t}-{i}".encode()) for i in range(24)]
        produce_txn(producer, topic, rows, commit=True)
        values += [v for *_, v in rows]
        if t % 4 == 3:
            produce_txn(producer, topic, [(i % 2, None, b"aborted") for i in range(6)], commit=False)
    return values


def batch_values(checkpoint: Path, source_records: list[tuple[int, int, bytes | None, bytes]]) -> list[list[bytes]]:
    """The source values each micro-batch read, from the offsets Spark's checkpoint planned."""
    ends: list[dict[int, int]] = []
    offsets = checkpoint / "offsets"
    for n in sorted(int(p.name) for p in offsets.iterdir() if p.name.isdigit()):
        [parts] = json.loads((offsets / str(n)).read_text().splitlines()[-1]).values()
        ends.append({int(p): o for p, o in parts.items()})
    out: list[list[bytes]] = []
    for n, end in enumerate(ends):
        start = ends[n - 1] if n else dict.fromkeys(end, 0)
        out.append([v for p, o, _k, v in source_records if start[p] <= o < end[p]])
    return out


def unfinished_transactions(bootstrap: str) -> list[tuple[str, str]]:
    with WireClient(bootstrap) as c:
        resp: Any = c.call(66, 1, ListTransactionsRequest(state_filters=UNFINISHED))
    return sorted((t.transactional_id, t.transaction_state) for t in resp.transaction_states)


def assert_nothing_left_open(bootstrap: str) -> None:
    # A commit's markers are written after EndTxn answers: PrepareCommit lasts a moment.
    deadline = time.monotonic() + 10
    while (left := unfinished_transactions(bootstrap)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == []


def test_each_micro_batch_becomes_visible_whole_and_exactly_once(
    spark: SparkSession, two_pc: BrokerProcess, name: str, tmp_path: Path
) -> None:
    bootstrap = two_pc.bootstrap
    source, sink = f"{name}-in", f"{name}-out"
    create_topic(bootstrap, source, 2)
    create_topic(bootstrap, sink, 2)
    expected = fill_source(bootstrap, source, f"{name}-gen", 5)
    source_records = read_committed(bootstrap, source, 2)
    checkpoint, holds = tmp_path / "checkpoint", tmp_path / "holds"
    holds.mkdir()
    writer = (
        spark.readStream.format("odradek")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", source)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", "40")
        .load()
        .selectExpr("key", "value")
        .writeStream.format("odradek")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", sink)
        .option("checkpointLocation", str(checkpoint))
        .option("transactionMode", "microBatch")
        # Every commit waits for the checks below; the first attempt of batch 1's Spark
        # partition 1 dies with its transaction prepared, and its retry rolls it back.
        .option("odradek.test.injectFailure", f"holdInCommit:{holds},afterProduce:1:1")
    )
    held: list[int] = []
    deadline = time.monotonic() + 180

    def run_checking_holds(query: StreamingQuery) -> list[BaseException]:
        """processAllAvailable on a thread of its own, while this one checks each held
        commit; what it raised."""
        errors: list[BaseException] = []

        def run() -> None:
            try:
                query.processAllAvailable()
            except BaseException as exc:
                errors.append(exc)

        runner = threading.Thread(target=run)
        runner.start()
        try:
            while runner.is_alive():
                for flag in sorted(holds.iterdir(), key=lambda p: int(p.name)):
                    n = int(flag.name)
                    batches = batch_values(checkpoint, source_records)
                    # In the driver's commit of batch n every task has prepared: batch n is
                    # written but invisible, every earlier batch visible whole.
                    visible = Counter(v for *_, v in read_committed(bootstrap, sink, 2))
                    assert visible == Counter(v for b in batches[:n] for v in b), f"batch {n}"
                    written = {v for *_, v in read_records(bootstrap, sink, 2, "read_uncommitted")}
                    assert set(batches[n]) <= written
                    held.append(n)
                    flag.unlink()
                assert time.monotonic() < deadline
                runner.join(0.05)
        finally:
            query.stop()
            runner.join()
        return errors

    # Started on this thread (the session's Python data sources are looked up on the
    # starting thread's); started again if its source's Python process did not connect back
    # in time (tests/integration/pipeline/query_start.py).
    for attempt in range(1, ATTEMPTS + 1):
        query = writer.start()
        errors = run_checking_holds(query)
        if not (errors and attempt < ATTEMPTS and connect_back_failed(errors[0], query)):
            break
    assert errors == []
    assert failed_tasks(spark, str(query.runId)) == 1
    assert held == list(range(len(batch_values(checkpoint, source_records))))
    assert len(held) >= 3  # 125 offsets in steps of at most 40
    out = Counter(v for *_, v in read_committed(bootstrap, sink, 2))
    assert out == Counter(expected)
    assert_nothing_left_open(bootstrap)


# Three Spark jobs one after the other, as in test_driver_kill.py, where pytest's default 300 s
# cut the third short on a loaded machine: the sum of the jobs' own bounds below
# (180 + 180 + 240 s) and the set-up.
@pytest.mark.timeout(660)
def test_driver_sigkill_before_and_after_the_decision(two_pc: BrokerProcess, name: str, tmp_path: Path) -> None:
    bootstrap = two_pc.bootstrap
    source, sink = f"{name}-in", f"{name}-out"
    create_topic(bootstrap, source, 2)
    create_topic(bootstrap, sink, 2)
    expected = [b"out-" + v for v in fill_source(bootstrap, source, f"{name}-gen", 8)]
    source_records = read_committed(bootstrap, source, 2)
    checkpoint, log = tmp_path / "checkpoint", tmp_path / "job.log"
    args = [bootstrap, source, sink, str(checkpoint)]

    def outputs(batch: int) -> list[bytes]:
        return [b"out-" + v for v in batch_values(checkpoint, source_records)[batch]]

    # Run 1: killed in the commit of batch 2 before its decision is recorded.
    before = tmp_path / "before-decision"
    job = start_job([*args, f"pauseInCommit:2:{before}", "microBatch"], log)
    try:
        wait_for(before.exists, job, 180, log)
        visible = sorted(v for *_, v in read_committed(bootstrap, sink, 2))
        assert visible == sorted(outputs(0) + outputs(1))
        prepared = unfinished_transactions(bootstrap)
        assert [(tid.rsplit("-", 1)[1], state) for tid, state in prepared] == [("0", "Ongoing"), ("1", "Ongoing")]
    finally:
        kill_job(job)
    assert committed_batches(checkpoint)[-1] == 1

    # Run 2: the replay of batch 2 rolls the prepared transactions back and rewrites them;
    # killed in the commit of batch 3 once it is decided and Spark partition 0 committed.
    after = tmp_path / "after-first-commit"
    job = start_job([*args, f"pauseAfterFirstCommit:3:{after}", "microBatch"], log)
    try:
        wait_for(after.exists, job, 180, log)
    finally:
        kill_job(job)
    assert committed_batches(checkpoint)[-1] == 2

    # Run 3: batch 3 is rolled forward (partition 1 committed as decided, both skipped).
    job = start_job([*args, "", "microBatch"], log)
    try:
        assert job.wait(240) == 0, log.read_text()[-3000:]
    finally:
        kill_job(job)

    out = Counter(v for *_, v in read_committed(bootstrap, sink, 2))
    assert {v: n for v, n in out.items() if n > 1} == {}
    assert sorted(out) == sorted(expected)
    # Only batch 2 was written twice (once rolled back); batch 3 was not rewritten.
    written = Counter(v for *_, v in read_records(bootstrap, sink, 2, "read_uncommitted"))
    assert sorted(v for v, n in written.items() if n > 1) == sorted(outputs(2))
    assert_nothing_left_open(bootstrap)


def test_batch_write_commits_whole_after_a_task_retry(spark: SparkSession, two_pc: BrokerProcess, name: str) -> None:
    topic = f"{name}-out"
    create_topic(two_pc.bootstrap, topic, 3)
    rows = [(f"k{i}", f"v{i}") for i in range(300)]
    spark.sparkContext.setJobGroup(name, "two-phase batch write")
    (
        spark.createDataFrame(rows, "key string, value string")
        .repartition(2)
        .write.format("odradek")
        .option("kafka.bootstrap.servers", two_pc.bootstrap)
        .option("topic", topic)
        .option("transactionMode", "microBatch")
        # Spark partition 1's first attempt dies prepared: its retry rolls that back.
        .option("odradek.test.injectFailure", "afterProduce:1:*")
        .mode("append")
        .save()
    )
    spark.sparkContext.setJobGroup("", "")
    assert failed_tasks(spark, name) == 1
    out = read_committed(two_pc.bootstrap, topic, 3)
    # No partition column: keys go where Kafka's murmur2 partitioner puts them.
    assert sorted((p, k, v) for p, _o, k, v in out) == sorted(
        (partition_for_key(k.encode(), 3), k.encode(), v.encode()) for k, v in rows
    )
    assert_nothing_left_open(two_pc.bootstrap)
