"""The leadership metrics of three brokers (docs/metrics.md): one controller, the live
brokers, partitions led and their epochs adding up to every partition, and after kill -9
of a broker the survivors' won counters and takeover histograms count its partitions."""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient
from prometheus_client.parser import text_string_to_metric_families

from odradek.testing import OdradekCluster, free_port
from tests.integration.cluster.conftest import HEARTBEAT_INTERVAL_MS, SESSION_TIMEOUT_MS
from tests.integration.cluster.test_failover import create_topic
from tests.names import unique
from tests.polling import wait_until

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture
def scraped_cluster(tmp_path: Path, new_postgres_url: Callable[[], str]) -> Iterator[tuple[OdradekCluster, dict[int, int]]]:
    nodes = OdradekCluster(new_postgres_url(), tmp_path, overrides={
        "broker.session.timeout.ms": str(SESSION_TIMEOUT_MS),
        "broker.heartbeat.interval.ms": str(HEARTBEAT_INTERVAL_MS),
        "num.partitions": "3",
    })
    ports = {node_id: free_port() for node_id in nodes.brokers}
    for node_id, port in ports.items():
        nodes.broker(node_id).overrides["metrics.port"] = str(port)
    with nodes:
        yield nodes, ports


def scrape(port: int) -> Samples:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text) for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


def led_partitions(samples: Samples) -> dict[tuple[str, str], float]:
    return {
        (dict(labels)["topic"], dict(labels)["partition"]): v
        for (name, labels), v in samples.items() if name == "odradek_partition_leader_epoch"
    }


def test_leadership_metrics_add_up_and_count_a_failover(scraped_cluster: tuple[OdradekCluster, dict[int, int]]) -> None:
    cluster, ports = scraped_cluster
    scrapes: dict[int, Samples] = {}

    def settled(nodes: list[int]) -> bool:
        scrapes.clear()
        scrapes.update({n: scrape(ports[n]) for n in nodes})
        led = [led_partitions(s) for s in scrapes.values()]
        every = set().union(*led)
        return (
            all(value(s, "odradek_cluster_live_brokers") == len(nodes) for s in scrapes.values())
            and sum(value(s, "odradek_cluster_controller") for s in scrapes.values()) == 1
            and len(every) >= 6 and sum(len(x) for x in led) == len(every)  # each partition led once
            and all(value(s, "odradek_partitions_led") == len(x) for s, x in zip(scrapes.values(), led, strict=True))
            and all(value(s, "odradek_partitions_led") > 0 for s in scrapes.values())
        )

    topic = unique("led")
    create_topic(AdminClient({"bootstrap.servers": cluster.bootstrap}), topic, 6)
    wait_until(lambda: settled([1, 2, 3]), timeout=30, what="three brokers sharing every partition")
    before = dict(scrapes)
    controller = next(n for n, s in before.items() if value(s, "odradek_cluster_controller") == 1)
    victim = next(n for n in (3, 2, 1) if n != controller)
    victim_led = led_partitions(before[victim])
    for s in before.values():
        assert value(s, "odradek_leadership_changes_total", change="lost") == 0
        # Every leadership won so far was a takeover, each timed once.
        won = value(s, "odradek_leadership_changes_total", change="won")
        assert won == value(s, "odradek_partition_takeover_seconds_count") >= value(s, "odradek_partitions_led")
        assert all(epoch >= 0 for epoch in led_partitions(s).values())

    cluster.broker(victim).kill()
    killed_at = time.monotonic()
    survivors = [n for n in (1, 2, 3) if n != victim]
    wait_until(lambda: settled(survivors), timeout=30, interval=0.02, what="the survivors leading every partition")
    failover = time.monotonic() - killed_at
    print(f"kill -9 of broker {victim}: its {len(victim_led)} partitions led again after {failover:.2f}s")

    taken = {n: value(scrapes[n], "odradek_leadership_changes_total", change="won")
             - value(before[n], "odradek_leadership_changes_total", change="won") for n in survivors}
    assert sum(taken.values()) == len(victim_led)
    for n in survivors:
        assert value(scrapes[n], "odradek_partition_takeover_seconds_count") \
            - value(before[n], "odradek_partition_takeover_seconds_count") == taken[n]
    now_led = {k: v for n in survivors for k, v in led_partitions(scrapes[n]).items()}
    # Each of the victim's partitions is led again at a higher epoch (docs/cluster.md).
    assert all(now_led[k] > epoch for k, epoch in victim_led.items())
