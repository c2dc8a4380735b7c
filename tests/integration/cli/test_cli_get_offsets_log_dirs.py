"""`odradek get-offsets` (kafka-get-offsets.sh) and `odradek log-dirs describe`
(kafka-log-dirs.sh) against the real broker: `topic:partition:offset` lines for each --time
and partition pattern, the log directory's partitions with their sizes, and refusals."""

from __future__ import annotations

import json
import time

import pytest
from confluent_kafka import Producer

from odradek.__main__ import main
from tests.integration.cli.cli_helpers import Run, cli
from tests.names import unique


def _text(capsys: pytest.CaptureFixture[str], bootstrap: str, *args: str) -> Run:
    capsys.readouterr()
    code = main(["--bootstrap-server", bootstrap, *args])
    out = capsys.readouterr()
    return Run(code, out.out, out.err)


BASE = (int(time.time()) - 60) * 1000


@pytest.fixture
def topic(capsys: pytest.CaptureFixture[str], bootstrap: str) -> str:
    """Three partitions: two records in partition 1 (timestamps BASE+3000 and BASE+1000, the
    latest first), one in partition 2 (BASE+2000), none in partition 0. BASE is a minute ago:
    recent enough for retention to keep them."""
    name = unique("offsets")
    assert cli(capsys, bootstrap, "topics", "create", name, "--partitions", "3").code == 0
    producer = Producer({"bootstrap.servers": bootstrap})
    for partition, stamp in ((1, 3000), (1, 1000), (2, 2000)):
        producer.produce(name, value=f"at-{stamp}".encode(), partition=partition, timestamp=BASE + stamp)
        assert producer.flush(10) == 0
    return name


def test_get_offsets_by_time_and_partition(capsys: pytest.CaptureFixture[str], bootstrap: str, topic: str) -> None:
    run = _text(capsys, bootstrap, "get-offsets", "--topic", topic)
    assert (run.code, run.out, run.err) == (0, f"{topic}:0:0\n{topic}:1:2\n{topic}:2:1\n", "")
    assert _text(capsys, bootstrap, "get-offsets", "--topic", topic, "--time", "-1").out == run.out
    assert _text(capsys, bootstrap, "get-offsets", "--topic", topic, "--time", "earliest").out == \
        f"{topic}:0:0\n{topic}:1:0\n{topic}:2:0\n"
    # max-timestamp (KIP-734): the offset of the latest timestamp; an empty partition has none
    # and is left out, as Kafka's tool leaves it out.
    assert _text(capsys, bootstrap, "get-offsets", "--topic", topic, "--time", "-3").out == \
        f"{topic}:1:0\n{topic}:2:0\n"
    # A timestamp: the first offset whose timestamp is at or after it.
    assert _text(capsys, bootstrap, "get-offsets", "--topic", topic, "--time", str(BASE + 2500)).out == \
        f"{topic}:1:0\n"
    assert _text(capsys, bootstrap, "get-offsets", "--topic", topic, "--time", str(BASE + 1500)).out == \
        f"{topic}:1:0\n{topic}:2:0\n"
    run = _text(capsys, bootstrap, "get-offsets", "--topic", topic, "--time", str(BASE + 3001))
    assert (run.code, run.out) == (0, "")

    # Partition patterns: N, N-M (M excluded), N-, -M; the topic a regular expression.
    assert _text(capsys, bootstrap, "get-offsets", "--topic", topic, "--partitions", "0,2").out == \
        f"{topic}:0:0\n{topic}:2:1\n"
    assert _text(capsys, bootstrap, "get-offsets", "--topic", topic, "--partitions", "1-2").out == f"{topic}:1:2\n"
    assert _text(capsys, bootstrap, "get-offsets", "--topic", topic[:-3] + "...", "--partitions", "-1").out == \
        f"{topic}:0:0\n"
    assert _text(capsys, bootstrap, "get-offsets", "--topic-partitions", f"{topic}:1-").out == \
        f"{topic}:1:2\n{topic}:2:1\n"
    assert cli(capsys, bootstrap, "get-offsets", "--topic", topic, "--partitions", "2").json == [
        {"topic": topic, "partition": 2, "offset": 1}]

    run = _text(capsys, bootstrap, "get-offsets", "--topic", unique("nothing"))
    assert (run.code, run.err) == (1, "Error: Could not match any topic-partitions with the specified filters\n")
    run = _text(capsys, bootstrap, "get-offsets", "--topic", topic, "--time", "yesterday")
    assert run.code == 1 and run.err.startswith("Error: Malformed time argument yesterday.")
    run = _text(capsys, bootstrap, "get-offsets", "--topic", topic, "--topic-partitions", f"{topic}:0")
    assert (run.code, run.err) == (1, "Error: --topic-partitions cannot be used with --topic or --partitions\n")


def test_log_dirs_describe(capsys: pytest.CaptureFixture[str], bootstrap: str, topic: str) -> None:
    run = _text(capsys, bootstrap, "log-dirs", "describe", "--topic-list", topic, "--broker-list", "1")
    lines = run.out.splitlines()
    assert (run.code, lines[:2]) == (0, ["Querying brokers for log directories information",
                                         "Received log directory information from brokers 1"])
    doc = json.loads(lines[2])
    assert doc["version"] == 1 and [b["broker"] for b in doc["brokers"]] == [1]
    (log_dir,) = doc["brokers"][0]["logDirs"]
    assert log_dir["error"] is None
    sizes = {p["partition"]: p["size"] for p in log_dir["partitions"]}
    assert sorted(sizes) == [f"{topic}-0", f"{topic}-1", f"{topic}-2"]
    assert sizes[f"{topic}-0"] == 0 and sizes[f"{topic}-1"] > sizes[f"{topic}-2"] > 0
    assert {(p["offsetLag"], p["isFuture"]) for p in log_dir["partitions"]} == {(0, False)}

    # Without --topic-list every partition; --json the same document.
    every = cli(capsys, bootstrap, "log-dirs", "describe").json
    assert {p["partition"] for p in every["brokers"][0]["logDirs"][0]["partitions"]} >= set(sizes)

    run = _text(capsys, bootstrap, "log-dirs", "describe", "--broker-list", "7")
    assert (run.code, run.err) == (1, "Error: ERROR: The given brokers do not exist from --broker-list: 7. "
                                      "Current existent brokers: 1\n")
