"""A consumer group on the cluster: its coordinator is the leader of the group's
`__consumer_offsets` partition, wherever that is, and when that broker is killed (SIGKILL)
the partition's new leader loads it and serves the group's committed offsets. A coordinator
paused past its session and resumed never answers from what it kept in memory."""

from __future__ import annotations

import time
from typing import Any

from confluent_kafka import Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient

from odradek.testing import OdradekCluster
from protocol.errors import ErrorCode
from protocol.messages.offset_fetch_request import OffsetFetchRequest, OffsetFetchRequestTopic
from tests.integration.cluster.test_failover import create_topic, producer
from tests.kafka_wire import WireClient
from tests.names import unique
from tests.polling import wait_until

OFFSET_FETCH = 9


def group_consumer(bootstrap: str, group: str) -> Consumer:
    return Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "topic.metadata.refresh.interval.ms": 1000,
    })


def consume(consumer: Consumer, count: int) -> list[bytes]:
    values: list[bytes] = []
    deadline = time.monotonic() + 60
    while len(values) < count and time.monotonic() < deadline:
        for message in consumer.consume(100, timeout=1.0):
            if message.error() is None:
                values.append(message.value())
    return values


def coordinator_of(admin: AdminClient, group: str) -> int:
    described = admin.describe_consumer_groups([group], request_timeout=10)[group].result()
    return int(described.coordinator.id)


def test_a_group_moves_with_its_coordinator_partition_and_keeps_its_offsets(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic, group = unique("cluster-group"), unique("g")
    create_topic(admin, topic, 3)
    p = producer(cluster.bootstrap)
    for i in range(30):
        p.produce(topic, f"first-{i}".encode(), partition=i % 3)
    assert p.flush(30) == 0

    first = group_consumer(cluster.bootstrap, group)
    first.subscribe([topic])
    assert sorted(consume(first, 30)) == sorted(f"first-{i}".encode() for i in range(30))
    first.commit(asynchronous=False)
    first.close()
    coordinator = coordinator_of(admin, group)

    cluster.broker(coordinator).kill()
    survivors = [n for n in cluster.brokers if n != coordinator]
    bootstrap = ",".join(cluster.broker(n).bootstrap for n in survivors)
    # Until then a survivor may still name the killed broker as the coordinator (see
    # _coordinator_among); from then on FindCoordinator names live brokers only.
    wait_until(lambda: all(_live_brokers(cluster.broker(n).bootstrap) == set(survivors) for n in survivors),
               timeout=30, what=f"broker {coordinator} gone from the metadata of {survivors}")
    wait_until(lambda: _coordinator_among(bootstrap, group, survivors), timeout=60,
               what=f"a coordinator for {group} among {survivors}")

    p = producer(bootstrap)
    for i in range(6):
        p.produce(topic, f"second-{i}".encode(), partition=i % 3)
    assert p.flush(60) == 0
    second = group_consumer(bootstrap, group)
    try:
        committed = second.committed([TopicPartition(topic, n) for n in range(3)], timeout=30)
        assert sorted((tp.partition, tp.offset) for tp in committed) == [(0, 10), (1, 10), (2, 10)]
        second.subscribe([topic])
        # The group resumes at its committed offsets: only what came after.
        assert sorted(consume(second, 6)) == sorted(f"second-{i}".encode() for i in range(6))
    finally:
        second.close()


def test_a_paused_coordinator_resumed_answers_not_coordinator_not_its_memory(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic, group = unique("cluster-lease"), unique("g")
    create_topic(admin, topic, 1)
    _commit_offset(cluster.bootstrap, group, topic, 5)
    coordinator = coordinator_of(admin, group)
    zombie = cluster.broker(coordinator)
    survivors = [n for n in cluster.brokers if n != coordinator]
    bootstrap = ",".join(cluster.broker(n).bootstrap for n in survivors)
    with WireClient(zombie.bootstrap, timeout=60) as old:
        zombie.pause()
        # Read by the paused broker only once it resumes, after another took the group over.
        old.send(OFFSET_FETCH, 7, OffsetFetchRequest(group_id=group, topics=[
            OffsetFetchRequestTopic(name=topic, partition_indexes=[0])]))
        wait_until(lambda: all(_live_brokers(cluster.broker(n).bootstrap) == set(survivors) for n in survivors),
                   timeout=30, what=f"broker {coordinator} gone from the metadata of {survivors}")
        wait_until(lambda: _coordinator_among(bootstrap, group, survivors), timeout=60,
                   what=f"a coordinator for {group} among {survivors}")
        _commit_offset(bootstrap, group, topic, 9)
        zombie.resume()
        _, answer = old.recv(OFFSET_FETCH, 7)
        fetched: Any = answer
        # Its lease lapsed while it was stopped: not the offset 5 it still holds in memory.
        assert fetched.error_code == ErrorCode.NOT_COORDINATOR, fetched
    committed = group_consumer(bootstrap, group)
    try:
        assert [tp.offset for tp in committed.committed([TopicPartition(topic, 0)], timeout=30)] == [9]
    finally:
        committed.close()


def _commit_offset(bootstrap: str, group: str, topic: str, offset: int) -> None:
    """Commits `offset` for the group's partition 0 (no member: a simple commit)."""
    consumer = group_consumer(bootstrap, group)
    try:
        consumer.commit(offsets=[TopicPartition(topic, 0, offset)], asynchronous=False)
    finally:
        consumer.close()


def _live_brokers(bootstrap: str) -> set[int]:
    """The brokers one broker's Metadata answer lists (the live ones)."""
    try:
        return set(AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).brokers)
    except KafkaException:
        return set()


def _coordinator_among(bootstrap: str, group: str, nodes: list[int]) -> bool:
    """The group described by a coordinator among `nodes`, asked with a client of its own
    each time: librdkafka's admin client caches the coordinator a FindCoordinator names
    (rd_kafka_coord_cache) and, once a later Metadata answer drops that broker (the killed
    one, named before the survivors saw it go), never asks again; every request of that
    client then times out waiting for it, however long the test waits."""
    try:
        return coordinator_of(AdminClient({"bootstrap.servers": bootstrap}), group) in nodes
    except KafkaException:
        return False
