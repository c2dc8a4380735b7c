"""Byte-rate quotas hold real clients to their rate: a confluent-kafka producer over its
`producer_byte_rate` for 10 s (the one long test), and an aiokafka consumer over its
`consumer_byte_rate` on a broker with shorter quota windows."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition
from confluent_kafka import Producer

from tests.broker_process import BrokerProcess
from tests.integration.quotas.quota_wire import alter, entry, op
from tests.kafka_wire import WireClient, create_topic
from tests.names import unique

PRODUCER_QUOTA = 200_000
CONSUMER_QUOTA = 100_000
RUN_SECONDS = 10.0
VALUE = b"x" * 1000


def test_a_producer_is_held_to_its_byte_rate(tmp_path: Path) -> None:
    topic = unique("quota-rate")
    with BrokerProcess(tmp_path / "data") as broker:
        with WireClient(broker.bootstrap) as c:
            create_topic(c, topic)
            assert alter(c, entry({"client-id": "held"}, op("producer_byte_rate", PRODUCER_QUOTA))) == [(0, None)]
        throttles: list[int] = []

        def stats(text: str) -> None:
            for b in json.loads(text)["brokers"].values():
                throttles.append(b["throttle"]["max"])

        delivered: list[float] = []

        def on_delivery(err: Any, msg: Any) -> None:
            if err is None:  # the ones still queued at the end are purged
                delivered.append(time.monotonic())

        producer = Producer({
            "bootstrap.servers": broker.bootstrap, "client.id": "held", "acks": 1, "linger.ms": 5,
            "batch.size": 4096, "queue.buffering.max.kbytes": 1024, "message.timeout.ms": 60_000,
            "statistics.interval.ms": 1000, "stats_cb": stats,
        })
        start = time.monotonic()
        while time.monotonic() - start < RUN_SECONDS:
            try:
                producer.produce(topic, VALUE, on_delivery=on_delivery)
            except BufferError:
                producer.poll(0.01)
            producer.poll(0)
        producer.poll(0.5)
        rate = sum(len(VALUE) for t in delivered if t - start <= RUN_SECONDS) / RUN_SECONDS
        producer.purge()
        producer.flush(5)
        del producer
    # Kafka's rate lets a young client send its windows' worth at once, then holds it back.
    assert abs(rate - PRODUCER_QUOTA) <= 0.2 * PRODUCER_QUOTA, rate
    assert max(throttles) > 0


async def test_a_consumer_is_held_to_its_byte_rate(tmp_path: Path) -> None:
    topic = unique("quota-consume")
    # Three 1 s windows: the rate settles after 2 s instead of 10.
    with BrokerProcess(tmp_path / "data", {"quota.window.num": "3"}) as broker:
        with WireClient(broker.bootstrap) as c:
            create_topic(c, topic)
        # Small batches: a fetch returns at least one whole batch, however large (KIP-74).
        loader = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5, "batch.size": 4096})
        for _ in range(1000):
            loader.produce(topic, VALUE)
        assert loader.flush(30) == 0
        del loader
        with WireClient(broker.bootstrap) as c:
            assert alter(c, entry({"client-id": "reader"}, op("consumer_byte_rate", CONSUMER_QUOTA))) == [(0, None)]
        consumer = AIOKafkaConsumer(
            bootstrap_servers=broker.bootstrap, client_id="reader", enable_auto_commit=False,
            auto_offset_reset="earliest", max_partition_fetch_bytes=8_192, fetch_max_wait_ms=100,
        )
        await consumer.start()
        try:
            consumer.assign([TopicPartition(topic, 0)])
            seconds = 5.0
            received = 0
            start = time.monotonic()
            while (left := seconds - (time.monotonic() - start)) > 0:
                batches = await consumer.getmany(timeout_ms=int(left * 1000))
                if time.monotonic() - start <= seconds:
                    received += sum(len(m.value) for ms in batches.values() for m in ms)
        finally:
            await consumer.stop()
    rate = received / seconds
    assert abs(rate - CONSUMER_QUOTA) <= 0.2 * CONSUMER_QUOTA, rate
