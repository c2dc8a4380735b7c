"""The streaming example on a Spark standalone cluster against an odradek cluster, with a
kill -9 of a broker mid-stream (`make pipeline PIPELINE_ARGS=--cluster`, and the test
tests/integration/cluster/test_spark_pipeline.py).

The driver is a process of its own (`orders_stream.py --master spark://...`); the executors,
in the workers' JVMs, get the connector only from the zip it ships (`--py-files`)."""

from __future__ import annotations

import random
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from confluent_kafka.admin import AdminClient

from odradek.postgres_server import running_postgres
from odradek.testing import OdradekCluster
from pipeline.examples.demo_steps import (
    check_batch,
    committed_batches,
    create_topics,
    generate,
    kill_job,
    run_job,
    stream_output,
)
from pipeline.package import build_zip
from pipeline.standalone import SparkStandalone

ORIGINS = re.compile(r"executors import the connector from: (.*)")


@contextmanager
def odradek_cluster(workdir: Path, brokers: int = 3) -> Iterator[OdradekCluster]:
    """A private PostgreSQL and `brokers` odradek brokers over it, on free loopback ports."""
    with (
        running_postgres() as postgres,
        OdradekCluster(postgres.url, workdir, size=brokers, overrides={"num.partitions": "3"}) as nodes,
    ):
        yield nodes


def leader_of(bootstrap: str, topic: str, partition: int) -> int:
    meta = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=30)
    return int(meta.topics[topic].partitions[partition].leader)


def cluster_job_args(spark: SparkStandalone, connector: Path) -> list[str]:
    """The driver's options: the master, the connector for the executors, their sizes."""
    args = ["--master", spark.master_url, "--py-files", str(connector)]
    for key, value in spark.app_conf().items():
        args += ["--conf", f"{key}={value}"]
    return args


# Spark waits a fixed 10 s for a Python worker it starts on the driver (PythonWorkerFactory's
# createSimpleWorker) to connect back: an overloaded machine can miss that, and the query fails.
# The job is then restarted from its checkpoint, as a supervisor would; nothing else is retried.
SLOW_PYTHON_START = "Python worker failed to connect back"
MAX_RESTARTS = 2


@dataclass
class BrokerKillRun:
    killed_node: int
    batches_at_kill: int
    batches_at_end: int
    seconds: float
    connector_origins: list[str] = field(default_factory=list)
    restarts: int = 0


class _Driver:
    """The streaming job's driver process, restarted from its checkpoint after a failure to
    start a Python worker in time (SLOW_PYTHON_START), at most MAX_RESTARTS times."""

    def __init__(self, start: Callable[[], subprocess.Popen[bytes]], log: Path) -> None:
        self.start, self.log = start, log
        self.mark = self._size()
        self.job = start()
        self.restarts = 0

    def _size(self) -> int:
        return self.log.stat().st_size if self.log.exists() else 0

    def running(self) -> bool:
        """False once the job exited 0; RuntimeError if it failed for good."""
        code = self.job.poll()
        if code is None:
            return True
        if code == 0:
            return False
        with open(self.log, "rb") as f:
            f.seek(self.mark)
            failure = f.read().decode(errors="replace")
        if SLOW_PYTHON_START not in failure or self.restarts >= MAX_RESTARTS:
            raise RuntimeError(f"the streaming job failed ({code}):\n{_tail(self.log)}")
        self.restarts += 1
        self.mark = self._size()
        self.job = self.start()
        return True

    def kill(self) -> None:
        kill_job(self.job)


def stream_with_broker_kill(
    nodes: OdradekCluster, spark: SparkStandalone, workdir: Path, timeout: float = 300.0
) -> BrokerKillRun:
    """Runs orders_stream.py on `spark` until it has caught up with `orders`, killing (-9) the
    leader of `orders` partition 0 once the first micro-batch committed."""
    checkpoint, log = workdir / "checkpoint", workdir / "stream-job.log"
    connector = build_zip(workdir / "connector.zip")
    started = time.monotonic()
    deadline = started + timeout
    driver = _Driver(lambda: run_job(nodes.bootstrap, checkpoint, log, cluster_job_args(spark, connector)), log)
    try:
        while committed_batches(checkpoint) < 1:
            if not driver.running():
                raise RuntimeError(f"the streaming job ended before a micro-batch committed:\n{_tail(log)}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"no micro-batch committed in {timeout}s:\n{_tail(log)}")
            time.sleep(0.1)
        victim = leader_of(nodes.bootstrap, "orders", 0)
        nodes.broker(victim).kill()
        at_kill = committed_batches(checkpoint)
        if driver.job.poll() == 0:
            raise RuntimeError(f"the job had caught up before the kill:\n{_tail(log)}")
        while driver.running():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the stream did not catch up in {timeout}s:\n{_tail(log)}")
            time.sleep(0.1)
    finally:
        driver.kill()
    origins = ORIGINS.search(log.read_text(errors="replace"))
    return BrokerKillRun(
        victim,
        at_kill,
        committed_batches(checkpoint),
        time.monotonic() - started,
        origins.group(1).split() if origins else [],
        driver.restarts,
    )


def _tail(log: Path, lines: int = 60) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def run_on_clusters(workdir: Path, orders: int, rng: random.Random) -> bool:
    """`make pipeline PIPELINE_ARGS=--cluster`: PostgreSQL, three brokers, a Spark master and
    two workers; the stream with a broker killed, then the batch job, both checked."""
    with odradek_cluster(workdir / "odradek") as nodes, SparkStandalone(workdir / "spark") as spark:
        print(f"odradek cluster: {nodes.bootstrap} over PostgreSQL {nodes.postgres_url}")
        print(f"Spark standalone: {spark.master_url}, {spark.alive_workers()} workers (logs in {spark.workdir})")
        create_topics(nodes.bootstrap)
        committed, aborted = generate(nodes.bootstrap, orders, rng)
        run = stream_with_broker_kill(nodes, spark, workdir)
        print(
            f"broker {run.killed_node} (leader of orders-0) killed -9 after {run.batches_at_kill} micro-batches; "
            f"the stream caught up in {run.batches_at_end} micro-batches, {run.seconds:.1f}s in all"
        )
        print(f"executors imported the connector from: {' '.join(run.connector_origins) or '?'}")
        if run.restarts:
            print(f"the driver was restarted from its checkpoint {run.restarts} time(s) ({SLOW_PYTHON_START})")
        result = stream_output(nodes.bootstrap, committed, aborted)
        print(result)
        connector = str(workdir / "connector.zip")
        batch_ok = check_batch(
            nodes.bootstrap, committed, master=spark.master_url, conf=spark.app_conf(), py_files=[connector]
        )
        return result.ok and batch_ok
