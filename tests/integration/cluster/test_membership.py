"""Membership as clients and operators see it: Metadata and DescribeCluster list the three
live brokers and the controller, leaders are balanced, a second broker with a taken node id
refuses to start; a killed controller is replaced between heartbeats."""

from __future__ import annotations

import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic

from coordinator.partitioning import partition_for
from odradek.testing import OdradekBroker, OdradekCluster
from protocol.errors import ErrorCode
from protocol.messages.find_coordinator_request import FindCoordinatorRequest
from tests.kafka_wire import WireClient
from tests.names import unique
from tests.polling import wait_until

OFFSETS_PARTITIONS = 50  # offsets.topic.num.partitions


def create_topic(admin: AdminClient, name: str, partitions: int) -> None:
    futures = admin.create_topics([NewTopic(name, partitions, 1)])
    futures[name].result(30)


def leaders(admin: AdminClient, topic: str) -> dict[int, int]:
    """partition -> leader (-1 when none), as a broker's Metadata answers."""
    found = admin.list_topics(topic, timeout=10).topics[topic]
    if found.error is not None and not found.partitions:
        return {}
    return {p.id: p.leader for p in found.partitions.values()}


def test_metadata_lists_three_brokers_and_balanced_leaders(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    wait_until(lambda: len(admin.list_topics(timeout=10).brokers) == 3, timeout=30, what="three live brokers")
    metadata = admin.list_topics(timeout=10)
    assert sorted(metadata.brokers) == [1, 2, 3]
    assert {(b.host, b.port) for b in metadata.brokers.values()} == {
        ("127.0.0.1", b.port) for b in cluster.brokers.values()
    }
    assert metadata.controller_id in (1, 2, 3)
    topic = unique("balanced")
    create_topic(admin, topic, 6)
    wait_until(lambda: sorted(Counter(leaders(admin, topic).values()).items()) == [(1, 2), (2, 2), (3, 2)],
               timeout=30, what="two leaders per broker")
    # Every broker answers the same leaders (replicas = isr = the leader).
    expected = leaders(admin, topic)
    for broker in cluster.brokers.values():
        one = AdminClient({"bootstrap.servers": broker.bootstrap})
        wait_until(lambda one=one: leaders(one, topic) == expected, timeout=15, what="the same leaders everywhere")
        described = one.list_topics(topic, timeout=10).topics[topic]
        for p in described.partitions.values():
            assert p.replicas == [p.leader] and p.isrs == [p.leader]
    described = admin.describe_cluster().result(10)
    assert sorted(n.id for n in described.nodes) == [1, 2, 3]
    assert described.controller.id in (1, 2, 3)


def test_a_second_broker_with_a_taken_node_id_refuses_to_start(cluster: OdradekCluster) -> None:
    first = cluster.broker(2)
    twin = OdradekBroker(first.data_dir.parent / "twin", dict(first.overrides))
    try:
        result = subprocess.run(twin.command(), env=twin._env(), capture_output=True, timeout=60)
        assert result.returncode == 1, result.stderr.decode()
        assert "node.id 2 is in use by another live broker" in result.stderr.decode()
    finally:
        twin.close()
    # The first one is untouched.
    admin = AdminClient({"bootstrap.servers": first.bootstrap})
    assert 2 in admin.list_topics(timeout=10).brokers


def test_find_coordinator_answers_the_leader_of_the_groups_partition(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    wait_until(lambda: len(admin.list_topics(timeout=10).brokers) == 3, timeout=30, what="three live brokers")
    groups = [unique("group") for _ in range(6)]
    with WireClient(cluster.broker(1).bootstrap) as first:
        # The first lookup creates __consumer_offsets; the controller then gives it leaders.
        first.call(10, 3, FindCoordinatorRequest(key=groups[0], key_type=0))
    def offsets_topic_led() -> bool:
        found = leaders(admin, "__consumer_offsets")
        return len(found) == OFFSETS_PARTITIONS and set(found.values()) <= {1, 2, 3}

    wait_until(offsets_topic_led, timeout=30, what="leaders of __consumer_offsets")
    offsets_leaders = leaders(admin, "__consumer_offsets")
    assert set(offsets_leaders.values()) == {1, 2, 3}
    # Each broker learns the new leaders on its own (NOTIFY 'leaders'): until it has, its
    # FindCoordinator names no one or a former leader.
    for broker in cluster.brokers.values():
        one = AdminClient({"bootstrap.servers": broker.bootstrap})
        wait_until(lambda one=one: leaders(one, "__consumer_offsets") == offsets_leaders, timeout=15,
                   what=f"the leaders of __consumer_offsets known at {broker.bootstrap}")
    for group in groups:
        expected = offsets_leaders[partition_for(group, OFFSETS_PARTITIONS)]
        for broker in cluster.brokers.values():
            with WireClient(broker.bootstrap) as client:
                answer: Any = client.call(10, 3, FindCoordinatorRequest(key=group, key_type=0))
            assert (answer.error_code, answer.node_id) == (ErrorCode.NONE, expected)
            assert answer.port == cluster.broker(expected).port


def test_a_killed_controller_is_replaced_well_within_a_heartbeat_interval(
    tmp_path: Path, new_postgres_url: Callable[[], str]
) -> None:
    # A long heartbeat interval: the survivor must take the controller lock (and move the
    # dead controller's partitions) between its heartbeats, not at the next one.
    heartbeat_ms = 6000
    overrides = {"broker.heartbeat.interval.ms": str(heartbeat_ms), "num.partitions": "1"}
    with OdradekCluster(new_postgres_url(), tmp_path, size=2, overrides=overrides) as nodes:
        admin = AdminClient({"bootstrap.servers": nodes.bootstrap})
        topic = unique("controller")
        create_topic(admin, topic, 4)
        wait_until(lambda: sorted(Counter(leaders(admin, topic).values()).items()) == [(1, 2), (2, 2)],
                   timeout=30, what="two leaders each")
        controller = admin.list_topics(timeout=10).controller_id
        survivor = 3 - controller
        nodes.broker(controller).kill()
        killed_at = time.monotonic()
        only = AdminClient({"bootstrap.servers": nodes.broker(survivor).bootstrap})

        def taken_over() -> bool:
            meta = only.list_topics(topic, timeout=10)
            return meta.controller_id == survivor and set(leaders(only, topic).values()) == {survivor}

        wait_until(taken_over, timeout=30, what="the survivor controlling and leading every partition")
        assert time.monotonic() - killed_at < heartbeat_ms / 1000 / 2
