"""Exactly-once across crashes: a consume-transform-produce worker SIGKILLed mid-transaction,
and the broker SIGKILLed while transactional producers commit and abort."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.broker_process import BrokerProcess
from tests.integration.transactions.eos_settled import settled
from tests.integration.transactions.txn_clients import CLIENTS, TP, TxnProducer, create_topics, read, values
from tests.polling import wait_until

ROOT = Path(__file__).resolve().parents[3]
INPUT_RECORDS = 40  # per partition


def _worker(client: str, bs: str, name: str, pause_at: int, mid: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.integration.transactions.eos_worker", client, bs, f"{name}-in", f"{name}-out", f"{name}-group",
         f"{name}-tid", str(pause_at), str(mid)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
    )


@pytest.mark.parametrize("client", CLIENTS)
def test_consume_transform_produce_survives_a_producer_crash(
    txn_broker: BrokerProcess, name: str, client: str, tmp_path: Path
) -> None:
    bs = txn_broker.bootstrap
    create_topics(bs, {f"{name}-in": 2, f"{name}-out": 2})
    feeder = TxnProducer("aiokafka", bs, f"{name}-feeder")
    try:
        feeder.init()
        feeder.begin()
        for i in range(2 * INPUT_RECORDS):
            feeder.send(f"{name}-in", i % 2, f"in-{i}".encode())
        feeder.flush()
        feeder.commit()
    finally:
        feeder.close()
    in_tps: list[TP] = [(f"{name}-in", 0), (f"{name}-in", 1)]
    settled(bs, in_tps, dict.fromkeys(in_tps, INPUT_RECORDS + 1))

    mid = tmp_path / "mid"
    first = _worker(client, bs, name, 3, mid)
    try:
        deadline = time.monotonic() + 30
        while not mid.exists():
            assert first.poll() is None, first.stderr.read().decode() if first.stderr else ""
            assert time.monotonic() < deadline, "the worker never reached the transaction to crash in"
            time.sleep(0.05)
    finally:
        first.kill()  # SIGKILL with its fourth transaction open
        first.wait(10)
    second = _worker(client, bs, name, -1, tmp_path / "unused")
    try:
        _, err = second.communicate(timeout=60)
    finally:
        if second.poll() is None:
            second.kill()
            second.wait(10)
    assert second.returncode == 0, err.decode()

    out_tps: list[TP] = [(f"{name}-out", 0), (f"{name}-out", 1)]
    hwm = settled(bs, out_tps)
    got = Counter(values(read(client, bs, out_tps, committed=True, until=hwm)))
    assert got == Counter(f"out-{i}".encode() for i in range(2 * INPUT_RECORDS))
    # The killed transaction's records are in the log, aborted.
    raw = Counter(values(read(client, bs, out_tps, committed=False, until=hwm)))
    assert sum(raw.values()) > 2 * INPUT_RECORDS


def test_broker_crashes_lose_no_committed_and_show_no_aborted_records(
    fresh_txn_broker: BrokerProcess, name: str
) -> None:
    """Two producers commit and abort continuously while the broker is SIGKILLed at random
    moments; a transaction counts as committed only when commit() returned."""
    broker = fresh_txn_broker
    bs = broker.bootstrap
    topics = {f"{name}-a": 2, f"{name}-b": 1}
    create_topics(bs, topics)
    tps: list[TP] = [(t, p) for t, n in topics.items() for p in range(n)]
    committed: set[bytes] = set()  # values of transactions whose commit() returned
    attempted: set[bytes] = set()  # values of every transaction we tried to commit
    stop = threading.Event()
    rng = random.Random(1234)

    def produce(worker: int) -> None:
        n = 0
        while not stop.is_set():
            p = TxnProducer("aiokafka", bs, f"{name}-tid-{worker}", timeout_ms=10000)
            try:
                p.init()
                while not stop.is_set():
                    n += 1
                    commit = n % 3 != 0
                    vals = [f"{worker}-{n}-{'c' if commit else 'a'}-{j}".encode() for j in range(len(tps))]
                    p.begin()
                    for (t, q), v in zip(tps, vals, strict=True):
                        p.send(t, q, v)
                    p.flush()
                    if commit:
                        attempted.update(vals)
                        p.commit()
                        committed.update(vals)
                    else:
                        p.abort()
            except Exception:
                time.sleep(0.2)  # the broker is down: start over with a new instance
            finally:
                p.close()

    threads = [threading.Thread(target=produce, args=(w,), daemon=True) for w in range(2)]
    for t in threads:
        t.start()
    try:
        for _ in range(3):
            time.sleep(rng.uniform(1.0, 2.5))
            broker.kill()
            broker.start()
        # Transactions committed after the last restart, so the check covers them too.
        before = len(committed)
        wait_until(lambda: len(committed) > before, timeout=30, what="a commit after the restart")
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    # Let the coordinator finish (or abort on timeout) whatever was left open.
    hwm = settled(bs, tps)
    seen = read("aiokafka", bs, tps, committed=True, until=hwm)
    got = Counter(values(seen))
    assert committed, "no transaction committed at all"
    assert max(got.values(), default=1) == 1, "duplicated records"
    assert committed <= set(got), f"lost committed records: {sorted(committed - set(got))[:5]}"
    assert all(b"-a-" not in v for v in got), "aborted records returned to read_committed"
    # Whatever else is visible belongs to a commit in flight when the broker died.
    assert set(got) <= attempted
    # A committed transaction is visible in full, on every partition.
    by_txn: dict[bytes, int] = Counter(v.rsplit(b"-", 1)[0] for v in got)
    assert all(count == len(tps) for count in by_txn.values()), "a partially visible transaction"
