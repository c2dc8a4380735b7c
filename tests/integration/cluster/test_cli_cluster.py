"""`odradek cluster describe` against three brokers with racks: every broker with its
address and rack, the one controller, and leader counts that add up to the partitions; and
the leaders of small topics spread over the racks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from odradek.testing import OdradekCluster
from tests.integration.cli.cli_helpers import Run, cli, cli_process
from tests.integration.cluster.conftest import HEARTBEAT_INTERVAL_MS, SESSION_TIMEOUT_MS
from tests.integration.cluster.test_failover import create_topic, wait_for_leaders
from tests.names import unique
from tests.polling import wait_until

RACKS = {1: "rack-a", 2: "rack-b", 3: "rack-a"}


@pytest.fixture
def racked_cluster(tmp_path: Path, new_postgres_url: Callable[[], str]) -> Iterator[OdradekCluster]:
    nodes = OdradekCluster(new_postgres_url(), tmp_path, overrides={
        "broker.session.timeout.ms": str(SESSION_TIMEOUT_MS),
        "broker.heartbeat.interval.ms": str(HEARTBEAT_INTERVAL_MS),
    })
    for node_id, rack in RACKS.items():
        nodes.broker(node_id).overrides["broker.rack"] = rack
    with nodes:
        yield nodes


def test_describe_lists_brokers_controller_and_leader_counts(
    racked_cluster: OdradekCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = unique("described")
    assert cli(capsys, racked_cluster.bootstrap, "topics", "create", topic, "--partitions", "6").code == 0
    found: dict[str, Run] = {}

    def all_led() -> bool:
        found["run"] = run = cli(capsys, racked_cluster.bootstrap, "cluster", "describe")
        data = run.json
        return (run.code == 0 and len(data["brokers"]) == 3 and data["partitions"] >= 6
                and data["partitions_without_leader"] == 0 and data["controller_id"] in RACKS)

    wait_until(all_led, timeout=30, what="three brokers, a controller and every partition led")
    data = found["run"].json
    assert [(b["id"], b["host"], b["port"], b["rack"]) for b in data["brokers"]] == [
        (n, "127.0.0.1", racked_cluster.broker(n).port, RACKS[n]) for n in (1, 2, 3)
    ]
    assert [b["id"] for b in data["brokers"] if b["controller"]] == [data["controller_id"]]
    assert sum(b["leaders"] for b in data["brokers"]) == data["partitions"]
    # The new topic's six partitions alone spread two per broker (docs/cluster.md), so no
    # broker leads fewer than two.
    assert all(b["leaders"] >= 2 for b in data["brokers"])

    text = cli_process("--bootstrap-server", racked_cluster.bootstrap, "cluster", "describe")
    assert text.code == 0, text.err
    lines = text.out.splitlines()
    assert lines[0].startswith(f"Cluster {data['cluster_id']}: 3 broker(s), controller {data['controller_id']}")
    assert lines[1].split() == ["ID", "ADDRESS", "RACK", "CONTROLLER", "LEADERS"]
    rows = {int(line.split()[0]): line.split() for line in lines[2:]}
    assert sorted(rows) == [1, 2, 3]
    assert rows[data["controller_id"]][3] == "yes"
    assert rows[2][1:3] == [f"127.0.0.1:{racked_cluster.broker(2).port}", "rack-b"]


def test_describe_sees_a_stopped_broker_leave(cluster: OdradekCluster, capsys: pytest.CaptureFixture[str]) -> None:
    cluster.broker(3).stop()
    bootstrap = ",".join(cluster.broker(n).bootstrap for n in (1, 2))

    def two_left() -> bool:
        run = cli(capsys, bootstrap, "cluster", "describe")
        return run.code == 0 and [b["id"] for b in run.json["brokers"]] == [1, 2] \
            and run.json["partitions_without_leader"] == 0
    wait_until(two_left, timeout=30, what="broker 3 gone from DescribeCluster, its partitions led by others")


def test_a_small_topics_leaders_are_spread_over_the_racks(racked_cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": racked_cluster.bootstrap})
    for _ in range(3):
        topic = unique("racked")
        create_topic(admin, topic, 2)
        led = wait_for_leaders(admin, topic, 2, set(RACKS))
        # Rack-aware placement (storage/postgres/cluster/assignment.py): one partition per rack.
        assert sorted(RACKS[b] for b in led.values()) == ["rack-a", "rack-b"], led
