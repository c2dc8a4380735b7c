"""The pipeline workloads: the connector (`pipeline/`) against the at-least-once path users
write without it (`bench/pipeline_baseline.py`), both in the same run on the same broker.

Spark starts once per bench worker process (5-20 s) and is reused by every run; each
workload times only its jobs, after its topics are created and filled."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from confluent_kafka import Consumer, Producer, TopicPartition

from bench.clients import WorkloadError, confluent_base, create_topic, producer_config, stamped, unique
from bench.pipeline_baseline import foreach_batch_writer, foreach_partition_writer, partition_reader
from bench.workloads import LatencyConsumer, warm_up_record

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

Metrics = dict[str, float]
ROOT = Path(__file__).resolve().parents[1]

_spark: SparkSession | None = None


def _session() -> SparkSession:
    global _spark
    if _spark is None:
        import pipeline

        _spark = pipeline.local_session(
            app_name="odradek-bench",
            master="local[2]",
            conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"},
        )
        _spark.sparkContext.setLogLevel("ERROR")
        _spark.sparkContext.parallelize(range(2), 2).count()  # start the Python workers, untimed
    return _spark


def _compare(connector: float, baseline: float, unit: str) -> Metrics:
    return {f"connector_{unit}": connector, f"baseline_{unit}": baseline, "vs_baseline": connector / baseline}


def _fill(bootstrap: str, topic: str, count: int, size: int, partitions: int, timeout: float) -> None:
    """`count` distinct records round-robin over the partitions, committed (a plain producer)."""
    producer = Producer(producer_config(bootstrap, "all", True))
    for i in range(count):
        value = f"{i:012d}".encode().ljust(size, b".")
        while True:
            try:
                producer.produce(topic, value, key=str(i).encode(), partition=i % partitions)
                break
            except BufferError:
                producer.poll(0.005)
        if i % 1000 == 0:
            producer.poll(0)
    if producer.flush(timeout):
        raise WorkloadError("prefill not acknowledged")


def _totals(df: DataFrame) -> tuple[int, int]:
    """Rows and value bytes of `df`: every value is read, none is collected."""
    from pyspark.sql import functions as F

    row = df.agg(F.count("*").alias("n"), F.sum(F.length("value")).alias("b")).collect()[0]
    return int(row["n"]), int(row["b"] or 0)


def _connector_read(bootstrap: str, topic: str) -> tuple[int, int]:
    df = _session().read.format("odradek").option("kafka.bootstrap.servers", bootstrap).option("subscribe", topic)
    return _totals(df.load())


def _baseline_read(bootstrap: str, topic: str, partitions: int) -> tuple[int, int]:
    from pyspark.sql.types import BinaryType, StructField, StructType

    spark = _session()
    schema = StructType([StructField("key", BinaryType()), StructField("value", BinaryType())])
    rdd = spark.sparkContext.parallelize(range(partitions), partitions).mapPartitions(partition_reader(bootstrap, topic))
    return _totals(spark.createDataFrame(rdd, schema))


def pipeline_batch_read(bootstrap: str, count: int, size: int, partitions: int, timeout: float) -> Metrics:
    """A batch read of a filled topic: `spark.read.format("odradek")` against a plain
    consumer per partition in `mapPartitions`; rows/s of each, read to the end. Both paths
    first read a small topic, untimed, so that neither pays for starting Python workers."""
    warm, topic = unique("pipeline-read-warm"), unique("pipeline-read")
    for name, rows in ((warm, 100), (topic, count)):
        create_topic(bootstrap, name, partitions)
        _fill(bootstrap, name, rows, size, partitions, timeout)
    _connector_read(bootstrap, warm)
    _baseline_read(bootstrap, warm, partitions)
    start = time.perf_counter()
    connector = _connector_read(bootstrap, topic)
    connector_s = time.perf_counter() - start
    start = time.perf_counter()
    baseline = _baseline_read(bootstrap, topic, partitions)
    baseline_s = time.perf_counter() - start
    for name, got in (("connector", connector), ("plain consumer", baseline)):
        if got[0] != count:
            raise WorkloadError(f"{name} read {got[0]} of {count} rows")
    return _compare(count / connector_s, count / baseline_s, "rows_s")


def _read_all(bootstrap: str, topic: str, partitions: int, timeout: float) -> list[bytes]:
    """Every committed value of `topic`, read to the last stable offset."""
    conf = confluent_base(bootstrap)
    conf.update({"group.id": unique("check"), "isolation.level": "read_committed", "enable.auto.commit": False,
                 "enable.partition.eof": True})
    consumer = Consumer(conf)
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    values: list[bytes] = []
    at_end: set[int] = set()
    deadline = time.monotonic() + timeout
    try:
        while len(at_end) < partitions:
            if time.monotonic() > deadline:
                raise WorkloadError(f"reading {topic} back timed out")
            for msg in consumer.consume(10_000, timeout=1.0):
                if msg.error() is None:
                    values.append(msg.value())
                elif msg.error().code() == -191:  # _PARTITION_EOF
                    at_end.add(msg.partition())
                else:
                    raise WorkloadError(msg.error().str())
    finally:
        consumer.close()
    return values


def _connector_write(bootstrap: str, df: DataFrame, topic: str) -> None:
    (
        df.write.format("odradek")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", topic)
        .option("transactionalIdPrefix", topic)
        .mode("append")
        .save()
    )


def _rows(count: int, size: int, partitions: int) -> DataFrame:
    """`count` distinct (key, value) rows, cached and materialised (untimed)."""
    from pyspark.sql import functions as F

    df = (
        _session()
        .range(0, count, numPartitions=partitions)
        .select(
            F.col("id").cast("string").cast("binary").alias("key"),
            F.rpad(F.format_string("%012d", F.col("id")), size, ".").cast("binary").alias("value"),
        )
        .cache()
    )
    df.count()
    return df


def pipeline_batch_write(bootstrap: str, count: int, size: int, partitions: int, timeout: float) -> Metrics:
    """A cached DataFrame of `count` rows written by `df.write.format("odradek")` (one
    transaction per Spark partition) and by `foreachPartition` with a plain producer; both
    paths first write 100 rows, untimed, so that neither pays for starting Python workers."""
    topics = {role: unique(f"pipeline-write-{role}") for role in ("warm-c", "warm-b", "connector", "baseline")}
    for topic in topics.values():
        create_topic(bootstrap, topic, partitions)
    warm, df = _rows(100, size, partitions), _rows(count, size, partitions)
    try:
        _connector_write(bootstrap, warm, topics["warm-c"])
        warm.foreachPartition(foreach_partition_writer(bootstrap, topics["warm-b"]))
        start = time.perf_counter()
        _connector_write(bootstrap, df, topics["connector"])
        connector_s = time.perf_counter() - start
        start = time.perf_counter()
        df.foreachPartition(foreach_partition_writer(bootstrap, topics["baseline"]))
        baseline_s = time.perf_counter() - start
    finally:
        warm.unpersist()
        df.unpersist()
    for role in ("connector", "baseline"):
        written = len(_read_all(bootstrap, topics[role], partitions, timeout))
        if written != count:
            raise WorkloadError(f"{role}: {written} of {count} rows written")
    return _compare(count / connector_s, count / baseline_s, "rows_s")


class _StampedInput:
    """Sends stamped records to a one-partition topic at a fixed rate on a thread of its own."""

    def __init__(self, bootstrap: str, topic: str, size: int, rate: int, seconds: float) -> None:
        self.producer = Producer(producer_config(bootstrap, "all", True, **{"linger.ms": 0}))
        self.topic, self.size, self.rate, self.total = topic, size, rate, int(rate * seconds)
        self._thread = threading.Thread(target=self._send, daemon=True)

    def _send(self) -> None:
        start = time.monotonic()
        for i in range(self.total):
            delay = start + i / self.rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self.producer.produce(self.topic, stamped(self.size))
            self.producer.poll(0)
        self.producer.flush(30)

    def start(self) -> None:
        self._thread.start()

    def join(self) -> None:
        self._thread.join(60)


def _copying_query(bootstrap: str, mode: str, source: str, sink: str, checkpoint: str) -> Any:
    """A streaming query (not started) copying `source` from its earliest offset to `sink`,
    micro-batches back to back: with the connector's sink, or (`baseline`) `foreachBatch`
    with a plain producer."""
    stream = (
        _session().readStream.format("odradek")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", source)
        .option("startingOffsets", "earliest")
        .load()
        .select("key", "value")
        .writeStream.option("checkpointLocation", checkpoint)
        .trigger(processingTime="0 seconds")
    )
    if mode == "connector":
        return stream.format("odradek").option("kafka.bootstrap.servers", bootstrap).option("topic", sink)
    return stream.foreachBatch(foreach_batch_writer(bootstrap, sink))


def _stream_latency(bootstrap: str, mode: str, size: int, rate: int, seconds: float, timeout: float) -> Metrics:
    source, sink = unique(f"pipeline-stream-{mode}-in"), unique(f"pipeline-stream-{mode}-out")
    create_topic(bootstrap, source)
    create_topic(bootstrap, sink)
    warm = Producer(producer_config(bootstrap, "all", True))
    warm.produce(source, warm_up_record(size))
    warm.flush(timeout)
    checkpoint = tempfile.mkdtemp(prefix="bench-pipeline-")
    writer = _copying_query(bootstrap, mode, source, sink, checkpoint)
    consumer = LatencyConsumer(bootstrap, sink)
    query = writer.start()
    try:
        consumer.wait_warm(timeout)
        sender = _StampedInput(bootstrap, source, size, rate, seconds)
        sender.start()
        sender.join()
        return consumer.wait_for(sender.total, timeout)
    finally:
        query.stop()
        consumer.close()
        shutil.rmtree(checkpoint, ignore_errors=True)


def pipeline_stream(bootstrap: str, size: int, rate: int, seconds: float, timeout: float) -> Metrics:
    """A streaming read -> write (micro-batches back to back): each record's time from its
    send into the input topic to its arrival at a read_committed consumer of the output,
    with the connector's sink and with a `foreachBatch` plain producer."""
    connector = _stream_latency(bootstrap, "connector", size, rate, seconds, timeout)
    baseline = _stream_latency(bootstrap, "baseline", size, rate, seconds, timeout)
    return {
        "connector_p50_ms": connector["p50_ms"],
        "connector_p99_ms": connector["p99_ms"],
        "baseline_p50_ms": baseline["p50_ms"],
        "baseline_p99_ms": baseline["p99_ms"],
    }


def _stream_copy_seconds(bootstrap: str, mode: str, source: str, count: int, partitions: int, timeout: float) -> float:
    """Seconds for a streaming query (micro-batches back to back, from the earliest offset)
    to copy `count` records of `source` into a new topic: with the connector's sink or with a
    `foreachBatch` plain producer. Timed from `start()` until the query reports every input
    row processed; the output is then checked complete."""
    sink = unique(f"pipeline-copy-{mode}-out")
    create_topic(bootstrap, sink, partitions)
    checkpoint = tempfile.mkdtemp(prefix="bench-pipeline-copy-")
    writer = _copying_query(bootstrap, mode, source, sink, checkpoint)
    start = time.perf_counter()
    query = writer.start()
    try:
        deadline = time.monotonic() + timeout
        while sum(p["numInputRows"] for p in query.recentProgress) < count:
            if query.exception() is not None:
                raise WorkloadError(f"{mode} query failed: {query.exception()}")
            if time.monotonic() > deadline:
                raise WorkloadError(f"{mode} query: {count} rows not copied in {timeout:.0f}s")
            time.sleep(0.05)
        seconds = time.perf_counter() - start
    finally:
        query.stop()
        shutil.rmtree(checkpoint, ignore_errors=True)
    written = len(_read_all(bootstrap, sink, partitions, timeout))
    if written != count:
        raise WorkloadError(f"{mode}: {written} of {count} rows in the output")
    return seconds


def pipeline_copy(bootstrap: str, count: int, size: int, partitions: int, timeout: float) -> Metrics:
    """Streaming throughput: a filled topic copied by a streaming query with the connector's
    sink and with `foreachBatch` + a plain idempotent producer (at-least-once); rows/s of
    each, after an untimed warm-up copy of 100 rows by both."""
    warm, source = unique("pipeline-copy-warm"), unique("pipeline-copy")
    for name, rows in ((warm, 100), (source, count)):
        create_topic(bootstrap, name, partitions)
        _fill(bootstrap, name, rows, size, partitions, timeout)
    for mode in ("connector", "baseline"):
        _stream_copy_seconds(bootstrap, mode, warm, 100, partitions, timeout)
    connector = _stream_copy_seconds(bootstrap, "connector", source, count, partitions, timeout)
    baseline = _stream_copy_seconds(bootstrap, "baseline", source, count, partitions, timeout)
    return _compare(count / connector, count / baseline, "rows_s")


def _high_watermark(consumer: Consumer, topic: str, partitions: int) -> int:
    return sum(consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in range(partitions))


def _commits(checkpoint: Path) -> int:
    commits = checkpoint / "commits"
    return sum(1 for p in commits.iterdir() if p.name.isdigit()) if commits.exists() else 0


def _start_job(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    # A session of its own: SIGKILL reaches the driver, its JVM and its Python workers at once.
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "bench.pipeline_job", *args],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )


def _kill(job: subprocess.Popen[bytes]) -> None:
    if job.poll() is None:
        os.killpg(job.pid, signal.SIGKILL)
    job.wait(30)


def _killed_and_restarted(bootstrap: str, mode: str, count: int, size: int, partitions: int, timeout: float) -> int:
    """Copy a filled topic with the stream job, SIGKILL its driver once the micro-batch after
    the second has begun writing, restart it from the checkpoint, and count the duplicates."""
    source, sink = unique(f"pipeline-kill-{mode}-in"), unique(f"pipeline-kill-{mode}-out")
    create_topic(bootstrap, source, partitions)
    create_topic(bootstrap, sink, partitions)
    _fill(bootstrap, source, count, size, partitions, timeout)
    work = Path(tempfile.mkdtemp(prefix="bench-pipeline-kill-"))
    checkpoint, log = work / "checkpoint", work / "job.log"
    args = [mode, bootstrap, source, sink, str(checkpoint)]
    watcher = Consumer({**confluent_base(bootstrap), "group.id": unique("watch")})
    try:
        job = _start_job(args, log)
        try:
            deadline = time.monotonic() + timeout
            written = -1
            while True:
                if job.poll() is not None:
                    raise WorkloadError(f"{mode} job exited {job.returncode} before the kill: {log.read_text()[-300:]}")
                if time.monotonic() > deadline:
                    raise WorkloadError(f"{mode} job: no third micro-batch in {timeout:.0f}s")
                if _commits(checkpoint) >= 2:
                    now = _high_watermark(watcher, sink, partitions)
                    if written >= 0 and now > written:
                        break  # the next batch is writing
                    written = now
                time.sleep(0.005)
        finally:
            _kill(job)
        job = _start_job(args, log)
        try:
            job.wait(timeout)
        except subprocess.TimeoutExpired:
            _kill(job)
            raise WorkloadError(f"{mode} job did not finish after the restart") from None
        if job.returncode != 0:
            raise WorkloadError(f"{mode} job exited {job.returncode}: {log.read_text()[-300:]}")
        values = Counter(_read_all(bootstrap, sink, partitions, timeout))
        if len(values) != count:
            raise WorkloadError(f"{mode}: {len(values)} of {count} records in the output")
        return sum(values.values()) - len(values)
    finally:
        watcher.close()
        shutil.rmtree(work, ignore_errors=True)


def pipeline_driver_kill(bootstrap: str, count: int, size: int, partitions: int, timeout: float) -> Metrics:
    """Duplicates in the output after a driver SIGKILL mid-stream and a restart from the
    checkpoint: the connector's sink against `foreachBatch` with a plain producer."""
    return {
        "connector_dups": float(_killed_and_restarted(bootstrap, "connector", count, size, partitions, timeout)),
        "baseline_dups": float(_killed_and_restarted(bootstrap, "baseline", count, size, partitions, timeout)),
    }


PIPELINE_WORKLOADS: dict[str, Any] = {
    f.__name__: f
    for f in (pipeline_batch_read, pipeline_batch_write, pipeline_copy, pipeline_stream, pipeline_driver_kill)
}
