"""Produce and consume across the brokers, and failover: a leader killed with SIGKILL
under idempotent load, and a leader paused (SIGSTOP) past the session timeout whose late
appends are refused when it resumes. Every acknowledged record is read back exactly once."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from odradek.testing import OdradekCluster
from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.integration.cluster.conftest import SESSION_TIMEOUT_MS
from tests.kafka_wire import WireClient, fetch_partition, init_producer_id, producer_batch
from tests.names import unique
from tests.polling import wait_until

PRODUCE = 0


def create_topic(admin: AdminClient, name: str, partitions: int) -> None:
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(30)


def leaders(admin: AdminClient, topic: str) -> dict[int, int]:
    found = admin.list_topics(topic, timeout=10).topics[topic]
    return {p.id: p.leader for p in found.partitions.values()}


def wait_for_leaders(admin: AdminClient, topic: str, partitions: int, live: set[int]) -> dict[int, int]:
    """Polls until every partition has a leader among `live`; returns them."""
    found: dict[int, int] = {}

    def ready() -> bool:
        found.clear()
        found.update(leaders(admin, topic))
        return len(found) == partitions and all(leader in live for leader in found.values())

    wait_until(ready, timeout=30, what=f"leaders of {topic} among {sorted(live)}")
    return dict(found)


def producer(bootstrap: str) -> Producer:
    return Producer({
        "bootstrap.servers": bootstrap,
        "enable.idempotence": True,
        "acks": "all",
        "linger.ms": 5,
        "message.timeout.ms": 60_000,
        "topic.metadata.refresh.interval.ms": 1000,
    })


def consume_all(bootstrap: str, topic: str, partitions: int, expected: int) -> dict[int, list[bytes]]:
    """Every value of every partition, read from offset 0 with assign()."""
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": unique("reader"),
        "enable.auto.commit": False,
        "topic.metadata.refresh.interval.ms": 1000,
    })
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        got: dict[int, list[bytes]] = {p: [] for p in range(partitions)}
        deadline = time.monotonic() + 60
        while sum(len(v) for v in got.values()) < expected and time.monotonic() < deadline:
            for message in consumer.consume(500, timeout=1.0):
                if message.error() is None:
                    got[message.partition()].append(message.value())
        return got
    finally:
        consumer.close()


class Acks:
    """Delivery reports: the values acknowledged, per partition, and the errors seen."""

    def __init__(self) -> None:
        self.acked: dict[int, list[bytes]] = {}
        self.errors: list[KafkaError] = []
        self.lock = threading.Lock()

    def __call__(self, err: KafkaError | None, message: Any) -> None:
        with self.lock:
            if err is None:
                self.acked.setdefault(message.partition(), []).append(message.value())
            else:
                self.errors.append(err)

    def count(self) -> int:
        with self.lock:
            return sum(len(v) for v in self.acked.values())


def test_produce_to_partitions_led_by_different_brokers_and_consume_back(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("spread")
    create_topic(admin, topic, 3)
    led = wait_for_leaders(admin, topic, 3, {1, 2, 3})
    assert sorted(led.values()) == [1, 2, 3]
    acks = Acks()
    p = producer(cluster.bootstrap)
    for i in range(300):
        p.produce(topic, b"v%d" % i, partition=i % 3, on_delivery=acks)
    assert p.flush(60) == 0
    assert acks.errors == []
    got = consume_all(cluster.bootstrap, topic, 3, 300)
    assert got == {part: [b"v%d" % i for i in range(300) if i % 3 == part] for part in range(3)}


def test_kill_9_of_a_leader_under_idempotent_load_loses_and_duplicates_nothing(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("kill")
    create_topic(admin, topic, 3)
    led = wait_for_leaders(admin, topic, 3, {1, 2, 3})
    victim = led[0]
    acks = Acks()
    p = producer(cluster.bootstrap)
    stop = threading.Event()

    def load() -> None:
        i = 0
        while not stop.is_set():
            p.produce(topic, b"v%d" % i, partition=i % 3, on_delivery=acks)
            i += 1
            p.poll(0)
            if i % 50 == 0:
                time.sleep(0.01)
        p.flush(90)

    worker = threading.Thread(target=load)
    worker.start()
    try:
        wait_until(lambda: acks.count() >= 300, timeout=30, what="acknowledged records before the kill")
        cluster.broker(victim).kill()
        killed_at = time.monotonic()
        survivors = {1, 2, 3} - {victim}
        survivor_admin = AdminClient({"bootstrap.servers": ",".join(cluster.broker(n).bootstrap for n in survivors)})
        wait_for_leaders(survivor_admin, topic, 3, survivors)
        failover = time.monotonic() - killed_at
        wait_until(lambda: acks.count() >= 900, timeout=60, what="acknowledged records after the failover")
    finally:
        stop.set()
        worker.join(120)
    assert failover < 15
    assert acks.errors == []
    acked = acks.acked
    total = sum(len(v) for v in acked.values())
    bootstrap = ",".join(cluster.broker(n).bootstrap for n in survivors)
    got = consume_all(bootstrap, topic, 3, total)
    for part in range(3):
        # Exactly once and in order: the partition holds what was acknowledged, no more.
        assert got[part] == acked.get(part, []), f"partition {part}"
        assert all(n == 1 for n in Counter(got[part]).values())


def _produce(client: WireClient, topic: str, records: bytes) -> Any:
    resp: Any = client.call(PRODUCE, 9, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
        TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=records)])]))
    return resp.responses[0].partition_responses[0]


def test_a_paused_leader_loses_its_partitions_and_its_late_appends_are_refused(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("pause")
    create_topic(admin, topic, 3)
    led = wait_for_leaders(admin, topic, 3, {1, 2, 3})
    zombie = cluster.broker(led[0])
    with WireClient(zombie.bootstrap, timeout=60) as old:
        pid, epoch = init_producer_id(old, None)
        firsts: list[Any] = []

        def served() -> bool:
            # Named leader by the table, it serves the partition once it has read it back
            # from PostgreSQL at a pass of its own: NOT_LEADER_OR_FOLLOWER until then.
            firsts.append(_produce(old, topic, producer_batch(pid, epoch, 0)))
            return bool(firsts[-1].error_code != ErrorCode.NOT_LEADER_OR_FOLLOWER)

        wait_until(served, timeout=15, what=f"broker {led[0]} serving {topic}-0")
        assert (firsts[-1].error_code, firsts[-1].base_offset) == (ErrorCode.NONE, 0)
        zombie.pause()
        paused_at = time.monotonic()
        # Sent while it is stopped: handled only once it resumes, after its successor took over.
        old.send(PRODUCE, 9, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
            TopicProduceData(name=topic, partition_data=[
                PartitionProduceData(index=0, records=producer_batch(pid, epoch, 2, n=2))])]))
        survivors = {1, 2, 3} - {led[0]}
        others = AdminClient({"bootstrap.servers": ",".join(cluster.broker(n).bootstrap for n in survivors)})
        moved = wait_for_leaders(others, topic, 3, survivors)
        assert time.monotonic() - paused_at >= SESSION_TIMEOUT_MS / 1000 * 0.9
        successor = cluster.broker(moved[0])
        with WireClient(successor.bootstrap) as new:
            # The producer carries on at the successor with the next sequence, retrying
            # NOT_LEADER_OR_FOLLOWER while the successor reads the partition back.
            answers: list[Any] = []

            def accepted() -> bool:
                answers.append(_produce(new, topic, producer_batch(pid, epoch, 2, n=3)))
                return bool(answers[-1].error_code != ErrorCode.NOT_LEADER_OR_FOLLOWER)

            wait_until(accepted, timeout=15, what="the successor serving")
            assert (answers[-1].error_code, answers[-1].base_offset) == (ErrorCode.NONE, 2)
            zombie.resume()
            _, late = old.recv(PRODUCE, 9)
            late_answer: Any = late
            code = late_answer.responses[0].partition_responses[0].error_code
            # Its membership lease lapsed while it was stopped: refused before any round.
            assert code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            # Once it knows, the former leader answers NOT_LEADER_OR_FOLLOWER.
            wait_until(lambda: _produce(old, topic, producer_batch(pid, epoch, 5)).error_code
                       == ErrorCode.NOT_LEADER_OR_FOLLOWER, timeout=15, what="the zombie refusing appends")
            fetched: Any = fetch_partition(new, topic, committed=False)
    values = [r.value for b in rb.decode_batches(fetched.records or b"") for r in b.records]
    assert values == [b"v0", b"v1", b"v2", b"v3", b"v4"]


def test_sigterm_of_a_leader_hands_its_partitions_over_without_a_client_error(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("handover")
    create_topic(admin, topic, 3)
    led = wait_for_leaders(admin, topic, 3, {1, 2, 3})
    leaving = led[0]
    acks = Acks()
    p = producer(cluster.bootstrap)
    stop = threading.Event()

    def load() -> None:
        i = 0
        while not stop.is_set():
            p.produce(topic, b"v%d" % i, partition=i % 3, on_delivery=acks)
            i += 1
            p.poll(0)
            if i % 50 == 0:
                time.sleep(0.01)
        p.flush(90)

    worker = threading.Thread(target=load)
    worker.start()
    try:
        wait_until(lambda: acks.count() >= 300, timeout=30, what="acknowledged records before the stop")
        assert cluster.broker(leaving).stop() == 0
        survivors = {1, 2, 3} - {leaving}
        survivor_admin = AdminClient({"bootstrap.servers": ",".join(cluster.broker(n).bootstrap for n in survivors)})
        wait_for_leaders(survivor_admin, topic, 3, survivors)
        before = acks.count()
        wait_until(lambda: acks.count() >= before + 300, timeout=60, what="acknowledged records after the stop")
    finally:
        stop.set()
        worker.join(120)
    assert acks.errors == []
    total = acks.count()
    got = consume_all(",".join(cluster.broker(n).bootstrap for n in survivors), topic, 3, total)
    for part in range(3):
        assert got[part] == acks.acked.get(part, []), f"partition {part}"
    log = cluster.broker(leaving).log()
    assert "controlled shutdown" not in log  # every partition moved before it stopped
