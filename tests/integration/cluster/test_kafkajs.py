"""kafkajs (Node.js) against three brokers, started from one broker's address: an
idempotent producer writes to partitions led by the three brokers, and a consumer group
reads every record back and commits (kafkajs_round_trip.js); then a transactional producer
whose coordinator and partitions sit on different brokers commits and aborts, and a
read_committed group sees exactly the committed records (kafkajs_transactions.js). kafkajs
is installed with npm into a cache folder on first use (KAFKAJS_DIR), as the container
test installs its tools."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from odradek.testing import OdradekCluster
from tests.integration.cluster.test_failover import consume_all
from tests.integration.cluster.test_other_clients import PARTITIONS, spread_topic
from tests.integration.cluster.test_transactions import TXN_STATE_PARTITIONS, leader_of_key
from tests.names import unique

KAFKAJS_VERSION = "2.2.4"
KAFKAJS_DIR = Path(os.environ.get("KAFKAJS_DIR", "/var/tmp/odradek-kafkajs"))
SCRIPT = Path(__file__).with_name("kafkajs_round_trip.js")
TXN_SCRIPT = Path(__file__).with_name("kafkajs_transactions.js")


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

    # The same cluster: transactions across brokers, read back with read_committed.
    topic, led = spread_topic(cluster, "kjs-txn")
    tid = unique("kjs-tid")
    done = subprocess.run(
        ["node", str(TXN_SCRIPT), cluster.broker(2).bootstrap, topic, unique("kjs-txn-group"), tid,
         str(PARTITIONS)],
        capture_output=True, text=True, timeout=120, env={**os.environ, "NODE_PATH": node_path},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    committed = [(p, f"{r}-{i}") for r in ("one", "two") for i in range(3 * PARTITIONS) for p in [i % PARTITIONS]]
    assert sorted(map(tuple, result["committed"])) == sorted(committed)
    by_partition = {p: [v for q, v in committed if q == p] for p in range(PARTITIONS)}
    consumed = {p: [v for q, v in result["consumed"] if q == p] for p in range(PARTITIONS)}
    assert consumed == by_partition
    # Its coordinator leads one partition at most: the other two were verified and marked
    # over the wire.
    coordinator = leader_of_key(AdminClient({"bootstrap.servers": cluster.bootstrap}), "__transaction_state",
                                tid, TXN_STATE_PARTITIONS)
    assert sum(1 for leader in led.values() if leader != coordinator) == 2
    # librdkafka's read_committed consumer agrees.
    got = consume_all(cluster.bootstrap, topic, PARTITIONS, len(committed))
    assert got == {p: [v.encode() for v in vs] for p, vs in by_partition.items()}
