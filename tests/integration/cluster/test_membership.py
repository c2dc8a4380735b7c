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
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic
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


def broker_metadata(broker: OdradekBroker, topics: list[str] | None = None) -> Any:
    """Metadata as this very broker answers it (a client sends its requests to whichever
    broker it picks): the brokers it lists, its controller and `topics` (all when None)."""
    wanted = None if topics is None else [MetadataRequestTopic(name=t) for t in topics]
    with WireClient(broker.bootstrap) as client:
        return client.call(3, 12, MetadataRequest(topics=wanted, allow_auto_topic_creation=False))


def led_partitions(metadata: Any, topic: str) -> dict[int, tuple[int, list[int], list[int]]]:
    """partition -> (leader, replicas, isr) of `topic` in a Metadata answer ({} when unknown)."""
    found = next((t for t in metadata.topics if t.name == topic), None)
    if found is None:
        return {}
    return {p.partition_index: (p.leader_id, p.replica_nodes, p.isr_nodes) for p in found.partitions}


def test_metadata_lists_three_brokers_and_balanced_leaders(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    # Each broker learns of a join at its own next pass, and a broker whose session ended
    # on a loaded machine is back at its next heartbeat (the controller then moves leaders
    # again): every state below is waited for on every broker, and the client's answer
    # asserted on is the one that showed it (a client asks whichever broker it picks).
    answered: list[Any] = []

    def three_everywhere() -> bool:
        views = [broker_metadata(b) for b in cluster.brokers.values()]
        if any(sorted(b.node_id for b in v.brokers) != [1, 2, 3] for v in views):
            return False
        if len({v.controller_id for v in views}) != 1:
            return False
        answered[:] = [admin.list_topics(timeout=10)]
        return len(answered[0].brokers) == 3

    wait_until(three_everywhere, timeout=30, what="three live brokers and one controller on every broker")
    [metadata] = answered
    assert sorted(metadata.brokers) == [1, 2, 3]
    assert {(b.host, b.port) for b in metadata.brokers.values()} == {
        ("127.0.0.1", b.port) for b in cluster.brokers.values()
    }
    assert metadata.controller_id in (1, 2, 3)
    topic = unique("balanced")
    create_topic(admin, topic, 6)
    views: dict[int, dict[int, tuple[int, list[int], list[int]]]] = {}

    def balanced_everywhere() -> bool:
        # Each broker reads the new topic and then its leaders at passes of its own.
        for node_id, broker in cluster.brokers.items():
            views[node_id] = led_partitions(broker_metadata(broker, [topic]), topic)
        answers = [{p: leader for p, (leader, _, _) in v.items()} for v in views.values()]
        return (all(a == answers[0] for a in answers)
                and sorted(Counter(answers[0].values()).items()) == [(1, 2), (2, 2), (3, 2)]
                and leaders(admin, topic) == answers[0])

    wait_until(balanced_everywhere, timeout=30, what="the same leaders on every broker, two per broker")
    # Every broker answers the same leaders (replicas = isr = the leader).
    for view in views.values():
        assert sorted(view) == list(range(6))
        for leader, replicas, isr in view.values():
            assert replicas == [leader] and isr == [leader]
    described: list[Any] = []

    def described_three() -> bool:
        described[:] = [admin.describe_cluster().result(10)]
        return len(described[0].nodes) == 3

    wait_until(described_three, timeout=30, what="three brokers in DescribeCluster")
    assert sorted(n.id for n in described[0].nodes) == [1, 2, 3]
    assert described[0].controller.id in (1, 2, 3)


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
    groups = [unique("group") for _ in range(6)]
    with WireClient(cluster.broker(1).bootstrap) as first:
        # The first lookup creates __consumer_offsets; the controller then gives it leaders.
        first.call(10, 3, FindCoordinatorRequest(key=groups[0], key_type=0))
    offsets_leaders: dict[int, int] = {}

    # Each broker learns the new leaders on its own (NOTIFY 'leaders'), and the brokers at
    # its own passes: until it has, its FindCoordinator names no one or a former leader.
    def offsets_topic_led_everywhere() -> bool:
        views = [broker_metadata(b, ["__consumer_offsets"]) for b in cluster.brokers.values()]
        answers = [{p: leader for p, (leader, _, _) in led_partitions(v, "__consumer_offsets").items()}
                   for v in views]
        offsets_leaders.clear()
        offsets_leaders.update(answers[0])
        return (len(offsets_leaders) == OFFSETS_PARTITIONS and set(offsets_leaders.values()) <= {1, 2, 3}
                and all(a == offsets_leaders for a in answers)
                and all(sorted(b.node_id for b in v.brokers) == [1, 2, 3] for v in views))

    wait_until(offsets_topic_led_everywhere, timeout=30, what="the same leaders of __consumer_offsets everywhere")
    assert set(offsets_leaders.values()) == {1, 2, 3}
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
