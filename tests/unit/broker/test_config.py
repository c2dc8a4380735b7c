"""The one config object: Kafka property names and defaults, file < environment < flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from broker.__main__ import parse_args
from broker.config import Config, ConfigError, Listener, read_properties
from broker.cpu_affinity import parse_cpus


def test_defaults_are_kafkas() -> None:
    config = Config()
    assert config.get("num.partitions") == 1
    assert config.get("auto.create.topics.enable") is True
    assert config.get("socket.request.max.bytes") == 104857600
    assert config.get("offsets.topic.num.partitions") == 50
    assert config.get("transaction.max.timeout.ms") == 900000
    assert config.get("queued.max.requests") == 500
    assert config.listeners == [Listener("PLAINTEXT", "127.0.0.1", 9092)]
    assert config.advertised_listeners == config.listeners


def test_properties_file_then_environment_then_flags(tmp_path: Path) -> None:
    props = tmp_path / "server.properties"
    props.write_text(
        "# a comment\n! another\nnum.partitions=3\nlog.dirs : /var/lib/x\nauto.create.topics.enable=false\n"
        "node.id=7\nqueued.max.requests=250\n"
    )
    assert read_properties(props)["log.dirs"] == "/var/lib/x"
    config = Config.load(
        props,
        environ={"ODRADEK_NUM_PARTITIONS": "5", "ODRADEK_NODE_ID": "8", "UNRELATED": "x"},
        cli={"node.id": "9"},
    )
    assert config.get("num.partitions") == 5  # environment over file
    assert config.node_id == 9  # flags over environment
    assert config.get("auto.create.topics.enable") is False  # file over default
    assert config.data_dir == Path("/var/lib/x")
    assert config.get_int("queued.max.requests") == 250  # a Kafka server.properties setting


def test_command_line_flags_and_overrides() -> None:
    path, cli = parse_args(
        ["--listeners", "PLAINTEXT://0.0.0.0:19092", "--log-dirs", "d", "--override", "num.partitions=4"]
    )
    assert path is None
    config = Config.load(None, environ={}, cli=cli)
    assert config.listeners == [Listener("PLAINTEXT", "0.0.0.0", 19092)]
    assert config.get("num.partitions") == 4


def test_advertised_listeners_are_separate() -> None:
    config = Config({"listeners": "PLAINTEXT://0.0.0.0:9092", "advertised.listeners": "PLAINTEXT://broker.example:19092"})
    assert config.advertised_listeners == [Listener("PLAINTEXT", "broker.example", 19092)]


@pytest.mark.parametrize(
    ("name", "value"),
    [("no.such.setting", "1"), ("num.partitions", "many"), ("auto.create.topics.enable", "perhaps"), ("listeners", "nohost")],
)
def test_bad_settings_are_refused(name: str, value: str) -> None:
    with pytest.raises(ConfigError):
        Config({name: value})


def test_typed_getters() -> None:
    config = Config({"offsets.retention.minutes": "2", "auto.create.topics.enable": "false"})
    assert config.get_int("num.partitions") == 1
    assert config.get_bool("auto.create.topics.enable") is False
    assert config.get_str("log.format") == "console"
    assert config.get_ms("offsets.retention.minutes") == 120_000
    assert config.get_ms("group.initial.rebalance.delay.ms") == 3000
    with pytest.raises(ConfigError):
        config.get_int("auto.create.topics.enable")  # a bool is not an int here
    with pytest.raises(ConfigError):
        config.get_bool("num.partitions")
    with pytest.raises(ConfigError):
        config.get_str("num.partitions")
    with pytest.raises(ConfigError):
        config.get_ms("num.partitions")


def test_cpu_affinity_is_a_list_of_cpus_checked_at_load() -> None:
    assert parse_cpus("") == frozenset()
    assert parse_cpus("0, 2-4") == frozenset({0, 2, 3, 4})
    assert Config.load(None, environ={"ODRADEK_CPU_AFFINITY": "1"}).get("cpu.affinity") == "1"
    with pytest.raises(ConfigError):
        Config.load(None, environ={}, cli={"cpu.affinity": "3-1"})
    with pytest.raises(ConfigError):
        Config.load(None, environ={}, cli={"cpu.affinity": "one"})


def test_pinning_moves_every_thread_of_the_process(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys
    cpu = min(os.sched_getaffinity(0))
    # A child process: pinning this one would pin the test run.
    script = (
        "import os, threading\n"
        "from broker.cpu_affinity import pin_process\n"
        "started = threading.Event(); stop = threading.Event()\n"
        "def run():\n    started.set(); stop.wait()\n"
        "t = threading.Thread(target=run); t.start(); started.wait()\n"
        f"pin_process(frozenset({{{cpu}}}))\n"
        "tids = [int(x) for x in os.listdir('/proc/self/task')]\n"
        "print(len(tids), sorted({c for tid in tids for c in os.sched_getaffinity(tid)}))\n"
        "stop.set(); t.join()\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.stdout == f"2 [{cpu}]\n"  # the main thread and the one started before
