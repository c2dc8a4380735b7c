"""The other clients against three brokers, each started from one broker's address alone
and following Metadata to the partitions' leaders on the others: aiokafka (idempotent
produce, and a consumer group of two members that commits), kafka-python and kcat produce
and consume exact records, non-transactional; kcat's read_committed consumer reads a topic
of committed and aborted transactions across brokers."""

from __future__ import annotations

import asyncio
import shutil
import subprocess

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.structs import TopicPartition as AioTopicPartition
from confluent_kafka.admin import AdminClient
from kafka import KafkaConsumer, KafkaProducer
from kafka import TopicPartition as KafkaTopicPartition

from odradek.testing import OdradekCluster
from tests.integration.cluster.test_failover import consume_all, create_topic, wait_for_leaders
from tests.integration.cluster.test_transactions import txn_producer
from tests.names import unique

PARTITIONS = 3


def spread_topic(cluster: OdradekCluster, prefix: str) -> tuple[str, dict[int, int]]:
    """A topic whose three partitions are led by the three brokers, one each."""
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique(prefix)
    create_topic(admin, topic, PARTITIONS)
    led = wait_for_leaders(admin, topic, PARTITIONS, {1, 2, 3})
    assert sorted(led.values()) == [1, 2, 3]
    return topic, led


async def test_aiokafka_produces_and_a_group_consumes_across_brokers(cluster: OdradekCluster) -> None:
    topic, _ = spread_topic(cluster, "aio")
    group = unique("aio-group")
    members = [
        AIOKafkaConsumer(topic, bootstrap_servers=cluster.broker(n).bootstrap, group_id=group,
                         auto_offset_reset="earliest", enable_auto_commit=False)
        for n in (2, 3)
    ]
    got: dict[int, list[tuple[int, bytes | None]]] = {p: [] for p in range(PARTITIONS)}
    for member in members:
        await member.start()
    try:
        # Both members in the group before any record exists, so that no rebalance moves a
        # partition while its records are read.
        async def joined() -> None:
            while not (all(m.assignment() for m in members)
                       and sum(len(m.assignment()) for m in members) == PARTITIONS):
                await asyncio.gather(*(m.getmany(timeout_ms=100) for m in members))

        await asyncio.wait_for(joined(), 60)
        producer = AIOKafkaProducer(bootstrap_servers=cluster.broker(1).bootstrap, acks="all",
                                    enable_idempotence=True)
        await producer.start()
        try:
            sent = [await producer.send_and_wait(topic, b"v%d" % i, key=b"k%d" % i, partition=i % PARTITIONS)
                    for i in range(60)]
        finally:
            await producer.stop()
        assert [(m.partition, m.offset) for m in sent] == [(i % PARTITIONS, i // PARTITIONS) for i in range(60)]

        async def drain(member: AIOKafkaConsumer) -> None:
            while sum(len(v) for v in got.values()) < 60:
                batches = await member.getmany(timeout_ms=500)
                for tp, records in batches.items():
                    got[tp.partition] += [(r.offset, r.value) for r in records]
                if batches:
                    await member.commit()

        await asyncio.wait_for(asyncio.gather(*(drain(m) for m in members)), 90)
    finally:
        for member in members:
            await member.stop()
    assert got == {p: [(i // PARTITIONS, b"v%d" % i) for i in range(60) if i % PARTITIONS == p]
                   for p in range(PARTITIONS)}

    checker = AIOKafkaConsumer(bootstrap_servers=cluster.broker(1).bootstrap, group_id=group,
                               enable_auto_commit=False)
    await checker.start()
    try:
        committed = {p: await checker.committed(AioTopicPartition(topic, p)) for p in range(PARTITIONS)}
    finally:
        await checker.stop()
    assert committed == {p: 20 for p in range(PARTITIONS)}


def test_kafka_python_produces_and_consumes_across_brokers(cluster: OdradekCluster) -> None:
    topic, _ = spread_topic(cluster, "kp")
    producer = KafkaProducer(bootstrap_servers=cluster.broker(2).bootstrap, acks="all")
    futures = [producer.send(topic, key=b"k%d" % i, value=b"v%d" % i, partition=i % PARTITIONS) for i in range(60)]
    producer.flush(30)
    assert [(f.get(10).partition, f.get(10).offset) for f in futures] == [
        (i % PARTITIONS, i // PARTITIONS) for i in range(60)]
    producer.close()
    consumer = KafkaConsumer(bootstrap_servers=cluster.broker(3).bootstrap, consumer_timeout_ms=5000,
                             enable_auto_commit=False)
    tps = [KafkaTopicPartition(topic, p) for p in range(PARTITIONS)]
    consumer.assign(tps)
    consumer.seek_to_beginning(*tps)
    got: dict[int, list[tuple[int, bytes, bytes]]] = {p: [] for p in range(PARTITIONS)}
    for m in consumer:
        got[m.partition].append((m.offset, m.key, m.value))
        if sum(len(v) for v in got.values()) == 60:
            break
    consumer.close()
    assert got == {p: [(i // PARTITIONS, b"k%d" % i, b"v%d" % i) for i in range(60) if i % PARTITIONS == p]
                   for p in range(PARTITIONS)}


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed (.ci/run installs it)")
def test_kcat_produces_and_consumes_across_brokers(cluster: OdradekCluster) -> None:
    topic, _ = spread_topic(cluster, "kcat")
    one = cluster.broker(3).bootstrap
    listing = subprocess.run(["kcat", "-b", one, "-L", "-t", topic], capture_output=True, text=True,
                             check=True, timeout=30).stdout
    assert "3 brokers:" in listing
    assert all(f"broker {n} at 127.0.0.1:{cluster.broker(n).port}" in listing for n in (1, 2, 3))
    for p in range(PARTITIONS):
        lines = "".join(f"k{p}-{i}:v{p}-{i}\n" for i in range(10))
        subprocess.run(["kcat", "-b", one, "-P", "-t", topic, "-p", str(p), "-K", ":", "-X", "acks=all"],
                       input=lines.encode(), check=True, timeout=30)
    out = subprocess.run(["kcat", "-b", one, "-C", "-t", topic, "-o", "beginning", "-e", "-f", "%p %o %k %s\\n"],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    got: dict[int, list[str]] = {p: [] for p in range(PARTITIONS)}
    for line in out.splitlines():
        partition, rest = line.split(" ", 1)
        got[int(partition)].append(rest)
    assert got == {p: [f"{i} k{p}-{i} v{p}-{i}" for i in range(10)] for p in range(PARTITIONS)}
    # librdkafka's own consumer sees the same, from every leader.
    values = consume_all(cluster.bootstrap, topic, PARTITIONS, 30)
    assert {p: len(v) for p, v in values.items()} == {p: 10 for p in range(PARTITIONS)}

    # kcat runs no transactions: a topic of committed and aborted transactions across
    # brokers (librdkafka's producer, its coordinator on one broker), read with kcat's
    # read_committed consumer from one broker's address.
    txn_topic, _ = spread_topic(cluster, "kcat-txn")
    producer = txn_producer(cluster.bootstrap, unique("kcat-tid"))
    producer.init_transactions(60)
    for round_, commit in (("one", True), ("aborted", False), ("two", True)):
        producer.begin_transaction()
        for i in range(3 * PARTITIONS):
            producer.produce(txn_topic, f"{round_}-{i}".encode(), partition=i % PARTITIONS)
        # In the log before the abort (librdkafka drops the records it still holds).
        assert producer.flush(30) == 0
        if commit:
            producer.commit_transaction(60)
        else:
            producer.abort_transaction(60)
    # Every transaction completed (librdkafka reads up to the last stable offset).
    assert {p: len(v) for p, v in consume_all(cluster.bootstrap, txn_topic, PARTITIONS, 18).items()} == {
        p: 6 for p in range(PARTITIONS)}

    def kcat_read(isolation: str) -> dict[int, list[str]]:
        out = subprocess.run(
            ["kcat", "-b", one, "-C", "-t", txn_topic, "-o", "beginning", "-e", "-X", f"isolation.level={isolation}",
             "-f", "%p %o %s\\n"], capture_output=True, text=True, check=True, timeout=60).stdout
        read: dict[int, list[str]] = {p: [] for p in range(PARTITIONS)}
        for line in out.splitlines():
            partition, rest = line.split(" ", 1)
            read[int(partition)].append(rest)
        return read

    # Each partition: three records of each transaction, each followed by its marker.
    def records(round_: str, p: int, first_offset: int) -> list[str]:
        return [f"{first_offset + n} {round_}-{p + PARTITIONS * n}" for n in range(3)]

    assert kcat_read("read_committed") == {
        p: records("one", p, 0) + records("two", p, 8) for p in range(PARTITIONS)}
    assert kcat_read("read_uncommitted") == {
        p: records("one", p, 0) + records("aborted", p, 4) + records("two", p, 8) for p in range(PARTITIONS)}
