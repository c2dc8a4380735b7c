"""`odradek perf produce` / `perf consume` (kafka-producer-perf-test.sh,
kafka-consumer-perf-test.sh) against the real broker: exact record counts landed and
consumed, Kafka's lines, the throughput limit kept, acks=0 and compression, the group's
offsets committed, the timeout warning, and the live progress line on a terminal only."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys

import pytest

from odradek.__main__ import main
from odradek.cli import perf_consume
from odradek.cli.client import Cluster
from odradek.cli.perf_stats import Clock
from tests.integration.cli.cli_helpers import Run, cli
from tests.names import unique
from tests.polling import wait_until

PRODUCE_LINE = re.compile(
    r"(\d+) records sent, [\d.]+ records/sec \([\d.]+ MB/sec\), [\d.]+ ms avg latency, [\d.]+ ms max latency, "
    r"\d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99\.9th\.")
DATE = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}"


def _text(capsys: pytest.CaptureFixture[str], bootstrap: str, *args: str) -> Run:
    capsys.readouterr()
    code = main(["--bootstrap-server", bootstrap, *args])
    out = capsys.readouterr()
    return Run(code, out.out, out.err)


def _end_offsets(capsys: pytest.CaptureFixture[str], bootstrap: str, topic: str) -> int:
    return sum(r["offset"] for r in cli(capsys, bootstrap, "get-offsets", "--topic", topic).json)


@pytest.fixture
def topic(capsys: pytest.CaptureFixture[str], bootstrap: str) -> str:
    name = unique("perf")
    assert cli(capsys, bootstrap, "topics", "create", name, "--partitions", "3").code == 0
    return name


def test_produce_then_consume(capsys: pytest.CaptureFixture[str], bootstrap: str, topic: str) -> None:
    run = _text(capsys, bootstrap, "perf", "produce", "--topic", topic, "--num-records", "3000",
                "--record-size", "100", "--throughput", "-1", "--producer-props", "batch.size=4096")
    assert (run.code, run.err) == (0, "")
    (line,) = run.out.splitlines()
    match = PRODUCE_LINE.fullmatch(line)
    assert match is not None and match.group(1) == "3000"
    assert _end_offsets(capsys, bootstrap, topic) == 3000
    # batch.size=4096 with 100-byte records: about 40 a batch, rotated over the partitions.
    assert all(r["offset"] > 0 for r in cli(capsys, bootstrap, "get-offsets", "--topic", topic).json)

    run = cli(capsys, bootstrap, "perf", "produce", "--topic", topic, "--num-records", "500", "--record-size", "10",
              "--throughput", "-1", "--producer-props", "acks=1", "compression.type=gzip", "linger.ms=0")
    assert run.code == 0
    summary = run.json
    assert (summary["records"], summary["bytes"]) == (500, 5000)
    assert summary["latency_max_ms"] >= summary["latency_avg_ms"] > 0
    assert set(summary["latency_percentiles_ms"]) == {"p50", "p95", "p99", "p999"}
    assert _end_offsets(capsys, bootstrap, topic) == 3500

    group = unique("perf-group")
    run = _text(capsys, bootstrap, "perf", "consume", "--topic", topic, "--messages", "3200", "--group", group)
    header, line = run.out.splitlines()
    assert (run.code, header) == (0, "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, "
                                     "nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec")
    fields = line.split(", ")
    assert re.fullmatch(DATE, fields[0]) and re.fullmatch(DATE, fields[1])
    # 3000 records of 100 bytes and 200 of 10, in some order across partitions: between.
    assert 200 * 10 + 3000 * 100 >= float(fields[2]) * 1024 * 1024 >= 3200 * 10
    assert (fields[4], fields[6]) == ("3200", "0")
    committed = cli(capsys, bootstrap, "groups", "describe", group).json
    assert sum(o["current_offset"] for o in committed["offsets"]) == 3200

    # The rest (300), then nothing: the timeout's warning, exit code 0.
    run = cli(capsys, bootstrap, "perf", "consume", "--topic", topic, "--messages", "1000", "--group", group,
              "--timeout", "300")
    assert (run.code, run.json["records"], run.json["timed_out"]) == (0, 300, True)
    assert run.err == ("WARNING: Exiting before consuming the expected number of messages: timeout (300 ms) "
                       "exceeded. You can use the --timeout option to increase the timeout.\n")
    run = _text(capsys, bootstrap, "perf", "consume", "--topic", topic, "--messages", "5", "--group", unique("g"),
                "--from-latest", "--timeout", "200", "--hide-header")
    assert run.code == 0 and run.out.split(", ")[4] == "0"


def test_throughput_limit_and_acks_zero(capsys: pytest.CaptureFixture[str], bootstrap: str, topic: str) -> None:
    run = cli(capsys, bootstrap, "perf", "produce", "--topic", topic, "--num-records", "100", "--record-size", "20",
              "--throughput", "200")
    # Record 100 is due 0.495 s after the first: no faster than 200/s (on average).
    assert run.code == 0 and run.json["elapsed_seconds"] >= 0.495
    assert run.json["records_per_second"] <= 100 / 0.495

    run = cli(capsys, bootstrap, "perf", "produce", "--topic", topic, "--num-records", "300", "--record-size", "20",
              "--throughput", "-1", "--producer-props", "acks=0")
    assert (run.code, run.json["records"]) == (0, 300)
    # Unacknowledged: they land, but nothing says when.
    wait_until(lambda: _end_offsets(capsys, bootstrap, topic) == 400, what="the acks=0 records")

    run = _text(capsys, bootstrap, "perf", "produce", "--topic", topic, "--num-records", "1", "--record-size", "1",
                "--throughput", "-1", "--producer-props", "acks=2")
    assert (run.code, run.err) == (1, "Error: Invalid value 2 for configuration acks: String must be one of: "
                                      "all, -1, 0, 1\n")
    run = _text(capsys, bootstrap, "perf", "produce", "--topic", unique("missing"), "--num-records", "1",
                "--record-size", "1", "--throughput", "-1")
    assert run.code == 1 and "does not exist" in run.err


def test_progress_line_on_a_terminal(bootstrap: str, topic: str) -> None:
    """The `odradek` command with its stderr on a pseudo-terminal: progress lines rewritten
    with carriage returns there, then cleared; stdout (a pipe) gets Kafka's line only."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "odradek", "--bootstrap-server", bootstrap, "perf", "produce",
                             "--topic", topic, "--num-records", "200", "--record-size", "10", "--throughput", "400",
                             "--producer-props", "linger.ms=0"], stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        seen += chunk
    out, _ = proc.communicate(timeout=60)
    os.close(master)
    assert proc.returncode == 0
    assert PRODUCE_LINE.fullmatch(out.strip()) is not None
    shown = [part for part in seen.decode().split("\r") if part.strip()]
    assert len(shown) >= 2 and all(re.match(r"\d+/200 records sent, ", part) for part in shown)
    assert seen.decode().endswith("\r")  # cleared at the end


def test_consume_detailed_stats(capsys: pytest.CaptureFixture[str], bootstrap: str, topic: str) -> None:
    """--show-detailed-stats: Kafka's header and a line per interval (totals so far, rates over
    the interval), no final line; the clock injected so that every fetch round ends one."""
    assert cli(capsys, bootstrap, "perf", "produce", "--topic", topic, "--num-records", "300", "--record-size", "10",
               "--throughput", "-1").code == 0
    ticks = iter(range(1_000_000))
    clock = Clock(now=lambda: float(next(ticks)), sleep=lambda _: None)
    shown: list[str] = []
    with Cluster(bootstrap) as cluster:
        out = perf_consume.consume(cluster, topic, 300, unique("detailed"), detailed_interval_ms=1000,
                                   report=shown.append, clock=clock)
    assert (out.lines, shown[0]) == ([], perf_consume.DETAILED_HEADER)
    rows = [line.split(", ") for line in shown[1:]]
    assert rows and all(re.fullmatch(DATE, r[0]) and r[1] == "0" and r[6] == "0" for r in rows)
    counts = [int(r[4]) for r in rows]
    assert counts == sorted(counts) and counts[-1] == 300 == out.data["records"]
    assert [i["records"] for i in out.data["intervals"]] == counts


def test_produce_in_transactions(capsys: pytest.CaptureFixture[str], bootstrap: str, topic: str) -> None:
    """--transactional-id: the records in transactions committed every
    --transaction-duration-ms and at the end; a read_committed consumer sees them all."""
    tid = unique("perf-tx")
    run = cli(capsys, bootstrap, "perf", "produce", "--topic", topic, "--num-records", "400", "--record-size", "10",
              "--throughput", "-1", "--transactional-id", tid, "--transaction-duration-ms", "0")
    # A zero duration: a transaction per batch (records go 16384 bytes or linger.ms at a time).
    assert run.code == 0 and run.json["records"] == 400 and run.json["transactions_committed"] >= 1
    # EndTxn answers at PrepareCommit; the markers are written after (as in Kafka).
    wait_until(lambda: cli(capsys, bootstrap, "transactions", "describe", "--transactional-id", tid).json[
        "state"] == "CompleteCommit", what="the last commit's markers")
    assert cli(capsys, bootstrap, "transactions", "describe", "--transactional-id", tid).json["partitions"] == []
    consumed = cli(capsys, bootstrap, "consume", topic, "--from-beginning", "--isolation", "read_committed",
                   "--max-messages", "400")
    assert len(consumed.json) == 400
    # Each commit wrote a marker to the partitions of its transaction: more offsets than records.
    assert _end_offsets(capsys, bootstrap, topic) >= 400 + run.json["transactions_committed"]

    run = _text(capsys, bootstrap, "perf", "produce", "--topic", topic, "--num-records", "1", "--record-size", "1",
                "--throughput", "-1", "--transactional-id", tid, "--producer-props", "acks=1")
    assert (run.code, run.err) == (1, "Error: Must set acks to all in order to use the transactional producer.\n")
