"""The steps of the demo (pipeline/examples/demo.py), shared with its run on a Spark standalone
cluster (cluster_run.py): topics, orders generated in transactions, the streaming job as a
process of its own, and the exactly-once check of its output."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import pipeline
from pipeline.examples.orders_batch import customer_totals
from pipeline.examples.orders_stream import LARGE

CUSTOMERS = [f"customer-{i}" for i in range(7)]
TXN_SIZE = 50
Order = dict[str, Any]


def create_topics(bootstrap: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    wanted = [
        NewTopic(t, num_partitions=3, replication_factor=1)
        for t in ("orders", "orders-large", "orders-small")
    ]
    wanted.append(NewTopic("customer-totals", num_partitions=1, replication_factor=1))
    for future in admin.create_topics(wanted).values():
        try:
            future.result(30)
        except Exception as exc:
            if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise


def generate(bootstrap: str, count: int, rng: random.Random) -> tuple[list[Order], int]:
    """Orders in transactions of 50; one transaction in four is aborted. Returns the committed
    orders and the number of aborted ones."""
    producer = Producer(
        {"bootstrap.servers": bootstrap, "transactional.id": "orders-generator", "linger.ms": 5}
    )
    producer.init_transactions(30)
    committed: list[Order] = []
    aborted = 0
    for first in range(0, count, TXN_SIZE):
        orders: list[Order] = [
            {"order_id": i, "customer": rng.choice(CUSTOMERS), "amount": round(rng.uniform(1, 1000), 2)}
            for i in range(first, min(first + TXN_SIZE, count))
        ]
        producer.begin_transaction()
        for order in orders:
            producer.produce("orders", key=order["customer"].encode(), value=json.dumps(order).encode())
        if (first // TXN_SIZE) % 4 == 3:
            producer.abort_transaction(30)
            aborted += len(orders)
        else:
            producer.commit_transaction(30)
            committed += orders
    return committed, aborted


def run_job(
    bootstrap: str, checkpoint: Path, log: Path, extra: list[str] | None = None
) -> subprocess.Popen[bytes]:
    """orders_stream.py as a driver process of its own; `extra`: its --master, --py-files, --conf."""
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "pipeline.examples.orders_stream", bootstrap, str(checkpoint), *(extra or [])],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # SIGKILL of the group takes the driver, its JVM and workers
        )


def kill_job(job: subprocess.Popen[bytes]) -> None:
    if job.poll() is None:
        os.killpg(job.pid, signal.SIGKILL)
    job.wait(30)


def committed_batches(checkpoint: Path) -> int:
    commits = checkpoint / "commits"
    return sum(1 for p in commits.iterdir() if p.name.isdigit()) if commits.exists() else 0


Record = tuple[str, bytes, bytes]


def read_committed(bootstrap: str, topics: list[str], partitions: int) -> list[Record]:
    """(topic, key, value) of every committed record, read to the LSO."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "demo-check",
            "isolation.level": "read_committed",
            "enable.partition.eof": True,
            "enable.auto.commit": False,
        }
    )
    consumer.assign([TopicPartition(t, p, 0) for t in topics for p in range(partitions)])
    values: list[Record] = []
    at_end: set[tuple[str, int]] = set()
    while len(at_end) < len(topics) * partitions:
        for msg in consumer.consume(1000, timeout=1.0):
            err = msg.error()
            if err is None:
                values.append((msg.topic() or "", msg.key() or b"", msg.value() or b""))
            elif err.code() == KafkaError._PARTITION_EOF:
                at_end.add((msg.topic() or "", msg.partition() or 0))
            else:
                raise RuntimeError(str(err))
    consumer.close()
    return values


def stream_with_kill(bootstrap: str, workdir: Path, rng: random.Random) -> None:
    checkpoint, log = workdir / "checkpoint", workdir / "stream-job.log"
    job = run_job(bootstrap, checkpoint, log)
    try:
        while committed_batches(checkpoint) < 2:
            if job.poll() is not None:
                raise RuntimeError(f"the streaming job ended early ({job.returncode}), see {log}")
            time.sleep(0.1)
        time.sleep(rng.uniform(0.0, 2.0))
    finally:
        kill_job(job)
    print(f"streaming job SIGKILLed after {committed_batches(checkpoint)} micro-batches; restarting it")
    job = run_job(bootstrap, checkpoint, log)
    if job.wait(600) != 0:
        raise RuntimeError(f"the restarted streaming job failed ({job.returncode}), see {log}")
    print(f"restarted job caught up: {committed_batches(checkpoint)} micro-batches in the checkpoint")


@dataclass
class StreamCheck:
    """What a read_committed consumer finds in orders-large and orders-small."""

    committed: int
    aborted: int
    output: int
    duplicates: int
    missing: int
    from_aborted: int
    misrouted: int

    @property
    def ok(self) -> bool:
        return self.duplicates == self.missing == self.from_aborted == self.misrouted == 0

    def __str__(self) -> str:
        return (
            f"stream: {self.committed} committed orders, {self.aborted} aborted; output {self.output} records: "
            f"{self.duplicates} duplicates, {self.missing} missing, {self.from_aborted} from aborted input, "
            f"{self.misrouted} misrouted"
        )


def stream_output(bootstrap: str, committed: list[Order], aborted: int) -> StreamCheck:
    records = read_committed(bootstrap, ["orders-large", "orders-small"], 3)
    outputs = [json.loads(v) for _t, _k, v in records]
    counts = Counter(o["order_id"] for o in outputs)
    expected = {o["order_id"] for o in committed}
    return StreamCheck(
        committed=len(committed),
        aborted=aborted,
        output=len(outputs),
        duplicates=sum(n - 1 for n in counts.values() if n > 1),
        missing=len(expected - counts.keys()),
        from_aborted=len(counts.keys() - expected),
        misrouted=sum((t == "orders-large") != (json.loads(v)["amount"] >= LARGE) for t, _k, v in records),
    )


def check_stream(bootstrap: str, committed: list[Order], aborted: int) -> bool:
    result = stream_output(bootstrap, committed, aborted)
    print(result)
    return result.ok


def check_batch(
    bootstrap: str,
    committed: list[Order],
    master: str = "local[2]",
    conf: dict[str, str] | None = None,
    py_files: list[str] | None = None,
) -> bool:
    spark = pipeline.local_session(
        app_name="orders-batch", master=master, conf={"spark.sql.shuffle.partitions": "2", **(conf or {})}
    )
    spark.sparkContext.setLogLevel("ERROR")
    for path in py_files or []:
        spark.sparkContext.addPyFile(path)
    written = customer_totals(spark, bootstrap)
    spark.stop()
    expected: dict[str, float] = {}
    for o in committed:
        expected[o["customer"]] = expected.get(o["customer"], 0.0) + o["amount"]
    got = {k.decode(): float(v) for _t, k, v in read_committed(bootstrap, ["customer-totals"], 1)}
    wrong = [c for c, total in expected.items() if abs(got.get(c, -1.0) - total) > 0.01]
    print(
        f"batch: {written} customer totals written, {len(got)} read back, {len(expected)} expected, {len(wrong)} wrong"
    )
    return written == len(got) == len(expected) and not wrong
