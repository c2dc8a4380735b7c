"""End-to-end demo: generate orders (some transactions aborted), stream them through Spark with a
SIGKILL of the driver at a random moment and a restart from the checkpoint, then count the
output with a read_committed consumer: every committed order exactly once, no aborted one.

usage: python -m pipeline.examples.demo [--bootstrap HOST:PORT] [--orders N]
Without --bootstrap it starts a broker of its own (`odradek.testing.OdradekBroker`) in a
temporary directory; with it, the topics orders, orders-large, orders-small and
customer-totals must be new."""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import pipeline
from odradek.testing import OdradekBroker
from pipeline.examples.orders_batch import customer_totals
from pipeline.examples.orders_stream import LARGE

CUSTOMERS = [f"customer-{i}" for i in range(7)]
TXN_SIZE = 50
Order = dict[str, Any]


@contextmanager
def local_broker(workdir: Path) -> Iterator[str]:
    with OdradekBroker(workdir / "data", log_path=workdir / "broker.log") as broker:
        yield broker.bootstrap


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


def run_job(bootstrap: str, checkpoint: Path, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "pipeline.examples.orders_stream", bootstrap, str(checkpoint)],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # SIGKILL of the group takes the driver, its JVM and workers
        )


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
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
        job.wait(30)
    print(f"streaming job SIGKILLed after {committed_batches(checkpoint)} micro-batches; restarting it")
    job = run_job(bootstrap, checkpoint, log)
    if job.wait(600) != 0:
        raise RuntimeError(f"the restarted streaming job failed ({job.returncode}), see {log}")
    print(f"restarted job caught up: {committed_batches(checkpoint)} micro-batches in the checkpoint")


def check_stream(bootstrap: str, committed: list[Order], aborted: int) -> bool:
    records = read_committed(bootstrap, ["orders-large", "orders-small"], 3)
    outputs = [json.loads(v) for _t, _k, v in records]
    counts = Counter(o["order_id"] for o in outputs)
    expected = {o["order_id"] for o in committed}
    duplicates = sum(n - 1 for n in counts.values() if n > 1)
    missing = len(expected - counts.keys())
    from_aborted = len(counts.keys() - expected)
    misrouted = sum((t == "orders-large") != (json.loads(v)["amount"] >= LARGE) for t, _k, v in records)
    print(
        f"stream: {len(committed)} committed orders, {aborted} aborted; output {len(outputs)} records: "
        f"{duplicates} duplicates, {missing} missing, {from_aborted} from aborted input, {misrouted} misrouted"
    )
    return duplicates == 0 and missing == 0 and from_aborted == 0 and misrouted == 0


def check_batch(bootstrap: str, committed: list[Order]) -> bool:
    spark = pipeline.local_session(app_name="orders-batch", conf={"spark.sql.shuffle.partitions": "2"})
    spark.sparkContext.setLogLevel("ERROR")
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bootstrap", help="an existing broker; default: start one")
    parser.add_argument("--orders", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=random.randrange(1 << 30))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"seed {args.seed}")
    with tempfile.TemporaryDirectory(prefix="odradek-pipeline-") as tmp:
        workdir = Path(tmp)
        with nullcontext(args.bootstrap) if args.bootstrap else local_broker(workdir) as bootstrap:
            create_topics(bootstrap)
            committed, aborted = generate(bootstrap, args.orders, rng)
            stream_with_kill(bootstrap, workdir, rng)
            ok = check_stream(bootstrap, committed, aborted)
            ok = check_batch(bootstrap, committed) and ok
    print("exactly once: OK" if ok else "exactly once: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
