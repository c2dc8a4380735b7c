"""`odradek transactions ...` and `odradek producers describe` against the real broker,
including a hanging transaction: a producer process was killed with a transaction open at a
partition, and its coordinator's state was lost (the broker killed and `__transaction_state` gone), so nothing
will ever end it; the CLI finds it and aborts it, and read_committed reads move on."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from odradek.testing import OdradekBroker
from tests.integration.cli.cli_helpers import cli
from tests.integration.cli.txn_producer import open_transaction

HOUR_MS = 3_600_000
ROOT = Path(__file__).resolve().parents[3]


def _open_transaction(bootstrap: str, topic: str, tid: str, timestamp: int) -> tuple[int, int]:
    """A transaction with two records at `topic`-0, left open by its client; returns
    (producer id, epoch)."""
    client, pid, epoch = open_transaction(bootstrap, topic, tid, timestamp)
    client.close()
    return pid, epoch


def _killed_producer(bootstrap: str, topic: str, tid: str, timestamp: int) -> tuple[int, int]:
    """The same from a producer process SIGKILLed with its transaction open."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.integration.cli.txn_producer", bootstrap, topic, tid, str(timestamp)],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        opened = json.loads(proc.stdout.readline())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    return opened["producer_id"], opened["producer_epoch"]


def test_open_transaction_is_listed_described_and_not_hanging(
    capsys: pytest.CaptureFixture[str], bootstrap: str
) -> None:
    topic, tid = f"cli-t-{uuid.uuid4().hex[:8]}", f"tid-{uuid.uuid4().hex[:8]}"
    now = int(time.time() * 1000)
    pid, epoch = _open_transaction(bootstrap, topic, tid, now)

    run = cli(capsys, bootstrap, "transactions", "list")
    assert run.code == 0
    assert {"transactional_id": tid, "coordinator": 1, "producer_id": pid, "state": "Ongoing"} in run.json

    run = cli(capsys, bootstrap, "transactions", "describe", "--transactional-id", tid)
    assert run.code == 0
    described = run.json
    started = described.pop("start_time_ms")
    assert now - 60_000 < started <= int(time.time() * 1000)
    assert described == {"transactional_id": tid, "producer_id": pid, "producer_epoch": epoch, "state": "Ongoing",
                        "timeout_ms": 60_000, "partitions": [f"{topic}-0"]}

    run = cli(capsys, bootstrap, "producers", "describe", "--topic", topic)
    assert run.code == 0
    [producer] = run.json
    assert now <= producer.pop("last_timestamp") <= int(time.time() * 1000)
    assert producer == {"topic": topic, "partition": 0, "producer_id": pid, "producer_epoch": epoch,
                        "coordinator_epoch": -1, "start_offset": 0, "last_sequence": 1}

    # Its coordinator knows it and will end it: not hanging, however old it is allowed to be.
    for max_minutes in ("15", "0"):
        run = cli(capsys, bootstrap, "transactions", "find-hanging", "--topic", topic,
                  "--max-transaction-timeout", max_minutes)
        assert (run.code, run.json) == (0, [])


def test_unknown_transactional_id(capsys: pytest.CaptureFixture[str], bootstrap: str) -> None:
    run = cli(capsys, bootstrap, "transactions", "describe", "--transactional-id", "no-such-tid")
    assert (run.code, run.out, run.err) == (1, "", "Error: transactional id no-such-tid does not exist\n")


def test_find_and_abort_a_hanging_transaction(capsys: pytest.CaptureFixture[str], fresh_broker: OdradekBroker) -> None:
    bootstrap = fresh_broker.bootstrap
    topic, tid = "hangs", "lost-tid"
    old = int(time.time() * 1000) - HOUR_MS
    pid, epoch = _killed_producer(bootstrap, topic, tid, old)

    # The coordinator's state is lost: nothing will ever write this transaction's markers.
    fresh_broker.kill()
    for path in fresh_broker.data_dir.glob("__transaction_state-*"):
        shutil.rmtree(path)
    fresh_broker.start()

    run = cli(capsys, bootstrap, "consume", topic, "--from-beginning", "--isolation", "read_committed",
              "--timeout-ms", "500")
    assert (run.code, run.json) == (0, [])

    expected = {"topic": topic, "partition": 0, "producer_id": pid, "producer_epoch": epoch, "coordinator_epoch": -1,
                "start_offset": 0, "last_timestamp": old, "last_sequence": 1, "transactional_id": None}
    for where in (["--topic", topic], ["--topic", topic, "--partition", "0"], ["--broker-id", "1"]):
        run = cli(capsys, bootstrap, "transactions", "find-hanging", *where)
        assert run.code == 0
        [hanging] = run.json
        assert hanging.pop("duration_ms") >= HOUR_MS
        assert hanging == expected

    run = cli(capsys, bootstrap, "transactions", "abort", "--topic", topic, "--partition", "0", "--start-offset", "0")
    assert (run.code, run.json) == (0, {"topic": topic, "partition": 0, "producer_id": pid, "producer_epoch": epoch,
                                        "coordinator_epoch": -1, "aborted": True})

    run = cli(capsys, bootstrap, "transactions", "find-hanging", "--topic", topic)
    assert (run.code, run.json) == (0, [])
    run = cli(capsys, bootstrap, "transactions", "abort", "--topic", topic, "--partition", "0", "--start-offset", "0")
    assert (run.code, run.err) == (1, f"Error: no transaction open at {topic}-0 starts at offset 0\n")

    # The last stable offset moved past the abort marker: committed reads see what follows.
    assert cli(capsys, bootstrap, "produce", topic, "--value", "after").code == 0
    run = cli(capsys, bootstrap, "consume", topic, "--from-beginning", "--isolation", "read_committed",
              "--timeout-ms", "500")
    assert run.code == 0
    assert [(r["offset"], r["value"]) for r in run.json] == [(3, "after")]
