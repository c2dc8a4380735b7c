"""The monitoring kit in monitoring/: Prometheus accepts the rules and the configuration,
the rules' own unit tests pass, and every metric the rules and the Grafana dashboard name is
one a real broker serves."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.broker_process import BrokerProcess, free_port

KIT = Path(__file__).resolve().parents[3] / "monitoring"
METRIC_NAME = re.compile(r"\bodradek_[a-z_]+")
# The series a family of each type exposes, besides its own name.
SUFFIXES = {"counter": ("_total", "_created"), "histogram": ("_bucket", "_sum", "_count", "_created")}


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("promtool")
    if tool is None:
        pytest.skip("promtool is missing (Debian's prometheus package: make test installs it)")
    return subprocess.run([tool, *args], cwd=KIT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", [("check", "rules", "alerts.yml"), ("check", "config", "prometheus.yml"),
                                  ("test", "rules", "alerts_test.yml")], ids=" ".join)
def test_promtool_accepts_the_kit(args: tuple[str, ...]) -> None:
    done = promtool(*args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def dashboard_expressions() -> list[str]:
    dashboard = json.loads((KIT / "grafana-dashboard.json").read_text())
    panels = [p for p in dashboard["panels"] if p["type"] != "row"]
    assert panels and all(p["targets"] for p in panels)
    return [t["expr"] for p in panels for t in p["targets"]]


def named_metrics() -> set[str]:
    text = (KIT / "alerts.yml").read_text() + "\n".join(dashboard_expressions())
    return set(METRIC_NAME.findall(text))


@pytest.fixture
def scraped(tmp_path: Path) -> Iterator[tuple[set[str], dict[str, float]]]:
    port = free_port()
    proc = BrokerProcess(tmp_path / "data", {"metrics.port": str(port)})
    proc.start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
            text = response.read().decode()
    finally:
        proc.stop()
    served: set[str] = set()
    values: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        served.add(family.name)
        served.update(family.name + suffix for suffix in SUFFIXES.get(family.type, ()))
        values.update((s.name, s.value) for s in family.samples)
    yield served, values


def test_every_metric_the_kit_names_is_served(scraped: tuple[set[str], dict[str, float]]) -> None:
    named = named_metrics()
    assert {"odradek_storage_write_failures_total", "odradek_log_dir_free_bytes", "odradek_lso_lag"} <= named
    assert named - scraped[0] == set()


def test_the_data_folder_and_write_failures_are_measured(scraped: tuple[set[str], dict[str, float]]) -> None:
    values = scraped[1]
    assert 0 < values["odradek_log_dir_free_bytes"] <= values["odradek_log_dir_total_bytes"]
    assert values["odradek_storage_write_failures_total"] == 0
