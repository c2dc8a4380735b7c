"""kafkajs (Node.js) against three brokers, started from one broker's address: an
idempotent producer writes to partitions led by the three brokers, and a consumer group
reads every record back and commits (kafkajs_round_trip.js). kafkajs is installed with npm
into a cache folder on first use (KAFKAJS_DIR), as the container test installs its tools."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from odradek.testing import OdradekCluster
from tests.integration.cluster.test_other_clients import PARTITIONS, spread_topic
from tests.names import unique

KAFKAJS_VERSION = "2.2.4"
KAFKAJS_DIR = Path(os.environ.get("KAFKAJS_DIR", "/var/tmp/odradek-kafkajs"))
SCRIPT = Path(__file__).with_name("kafkajs_round_trip.js")


@pytest.fixture(scope="module")
def node_path() -> str:
    """The node_modules folder holding kafkajs, installed there when missing."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed (Debian's nodejs and npm)")
    modules = KAFKAJS_DIR / "node_modules"
    installed = modules / "kafkajs" / "package.json"
    if not installed.exists() or json.loads(installed.read_text())["version"] != KAFKAJS_VERSION:
        KAFKAJS_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent", f"kafkajs@{KAFKAJS_VERSION}"],
                       cwd=KAFKAJS_DIR, check=True, timeout=300, capture_output=True)
    return str(modules)


def test_kafkajs_produces_and_a_group_consumes_across_brokers(cluster: OdradekCluster, node_path: str) -> None:
    topic, _ = spread_topic(cluster, "kjs")
    count = 30
    done = subprocess.run(
        ["node", str(SCRIPT), cluster.broker(2).bootstrap, topic, unique("kjs-group"), str(count), str(PARTITIONS)],
        capture_output=True, text=True, timeout=120, env={**os.environ, "NODE_PATH": node_path},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["produced"] == [[i % PARTITIONS, i // PARTITIONS] for i in range(count)]
    assert sorted(result["consumed"]) == sorted(
        [i % PARTITIONS, i // PARTITIONS, f"k{i}", f"v{i}"] for i in range(count))
    assert sorted(result["committed"]) == [[p, count // PARTITIONS] for p in range(PARTITIONS)]
