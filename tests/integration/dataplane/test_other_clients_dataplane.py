"""confluent-kafka (librdkafka), kafka-python and kcat produce and consume exact records."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from kafka import KafkaConsumer, KafkaProducer
from kafka import TopicPartition as KafkaTopicPartition

from tests.broker_process import BrokerProcess
from tests.names import unique


def confluent_read(bootstrap: str, topic: str, partition: int, expected: int) -> list:  # type: ignore[type-arg]
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False, "auto.offset.reset": "earliest"}
    )
    consumer.assign([TopicPartition(topic, partition, 0)])
    got = []
    try:
        while len(got) < expected:
            messages = consumer.consume(expected - len(got), 10)
            if not messages:
                break
            for m in messages:
                assert m.error() is None, m.error()
                got.append(m)
    finally:
        consumer.close()
    return got


@pytest.mark.parametrize("compression", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_confluent_kafka_round_trip(broker: BrokerProcess, compression: str) -> None:
    topic = unique("ck")
    producer = Producer(
        {"bootstrap.servers": broker.bootstrap, "acks": "all", "compression.type": compression, "linger.ms": 2}
    )
    delivered: list[tuple[int, bytes | None]] = []

    def on_delivery(err: object, msg: object) -> None:
        assert err is None, err
        delivered.append((msg.offset(), msg.key()))  # type: ignore[attr-defined]

    sent = [(str(i).encode() if i % 3 else None, None if i % 7 == 0 else b"v" * i) for i in range(200)]
    for key, value in sent:
        producer.produce(
            topic, key=key, value=value, headers=[("i", str(len(delivered)).encode())], timestamp=1_700_000_000_000,
            on_delivery=on_delivery,
        )
    assert producer.flush(15) == 0
    assert [offset for offset, _ in delivered] == list(range(len(sent)))
    got = confluent_read(broker.bootstrap, topic, 0, len(sent))
    assert [(m.offset(), m.key(), m.value()) for m in got] == [(i, k, v) for i, (k, v) in enumerate(sent)]
    assert all(m.timestamp()[1] == 1_700_000_000_000 for m in got)


def test_kafka_python_round_trip(broker: BrokerProcess) -> None:
    topic = unique("kp")
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", compression_type="gzip", enable_idempotence=False)
    futures = [producer.send(topic, key=b"k%d" % i, value=b"v%d" % i, headers=[("n", b"%d" % i)]) for i in range(50)]
    producer.flush(15)
    assert [f.get(10).offset for f in futures] == list(range(50))
    producer.close()
    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, consumer_timeout_ms=5000, enable_auto_commit=False)
    tp = KafkaTopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    got = [(m.offset, m.key, m.value, list(m.headers)) for m in consumer]
    consumer.close()
    assert got == [(i, b"k%d" % i, b"v%d" % i, [("n", b"%d" % i)]) for i in range(50)]


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed (.ci/run installs it)")
def test_kcat_produces_and_consumes(broker: BrokerProcess) -> None:
    topic = unique("kcat")
    lines = "\n".join(f"key{i}:value{i}" for i in range(20)) + "\n"
    subprocess.run(
        ["kcat", "-b", broker.bootstrap, "-P", "-t", topic, "-K", ":", "-z", "snappy"],
        input=lines.encode(), check=True, timeout=30,
    )
    out = subprocess.run(
        ["kcat", "-b", broker.bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-f", "%o %k %s\\n"],
        capture_output=True, check=True, timeout=30,
    )
    assert out.stdout.decode().splitlines() == [f"{i} key{i} value{i}" for i in range(20)]
    listing = subprocess.run(["kcat", "-b", broker.bootstrap, "-L", "-t", topic], capture_output=True, check=True, timeout=30)
    assert f'topic "{topic}" with 1 partitions' in listing.stdout.decode()
