"""Idempotent producers of aiokafka, confluent-kafka and kafka-python write every record
exactly once and in order; aiokafka's transactions are seen by read_committed consumers
only once committed."""

from __future__ import annotations

import asyncio

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as CkTopicPartition
from kafka import KafkaProducer

from tests.broker_process import BrokerProcess
from tests.names import unique

COUNT = 300


def expected(n: int = COUNT) -> list[bytes]:
    return [b"value-%d" % i for i in range(n)]


async def read(bootstrap: str, topic: str, *, committed: bool, until: int | None = None,
               timeout_ms: int = 3000) -> list[bytes]:
    """Values of partition 0 from the start, until `until` records or a quiet poll."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False,
        isolation_level="read_committed" if committed else "read_uncommitted",
    )
    await consumer.start()
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        got: list[bytes] = []
        while until is None or len(got) < until:
            batch = await consumer.getmany(timeout_ms=timeout_ms)
            if not batch:
                break
            for records in batch.values():
                got.extend(r.value for r in records)
        return got
    finally:
        await consumer.stop()


def confluent_read(bootstrap: str, topic: str, n: int) -> list[bytes]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False})
    consumer.assign([CkTopicPartition(topic, 0, 0)])
    got: list[bytes] = []
    try:
        while len(got) < n:
            messages = consumer.consume(n - len(got), 10)
            if not messages:
                break
            for m in messages:
                assert m.error() is None, m.error()
                value = m.value()
                assert value is not None
                got.append(value)
    finally:
        consumer.close()
    return got


async def test_aiokafka_idempotent_producer(broker: BrokerProcess) -> None:
    topic = unique("idem-aio")
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, enable_idempotence=True, acks="all",
                                linger_ms=2)
    await producer.start()
    try:
        futures = [await producer.send(topic, value) for value in expected()]
        offsets = [(await f).offset for f in futures]
    finally:
        await producer.stop()
    assert offsets == list(range(COUNT))
    assert await read(broker.bootstrap, topic, committed=False, until=COUNT) == expected()


def test_confluent_idempotent_producer(broker: BrokerProcess) -> None:
    topic = unique("idem-ck")
    producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "acks": "all",
                         "linger.ms": 2})
    offsets: list[int] = []

    def on_delivery(err: object, msg: object) -> None:
        assert err is None, err
        offsets.append(msg.offset())  # type: ignore[attr-defined]

    for value in expected():
        producer.produce(topic, value=value, on_delivery=on_delivery)
    assert producer.flush(20) == 0
    assert offsets == list(range(COUNT))
    assert confluent_read(broker.bootstrap, topic, COUNT) == expected()


def test_kafka_python_idempotent_producer(broker: BrokerProcess) -> None:
    topic = unique("idem-kp")
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap, enable_idempotence=True, acks="all")
    futures = [producer.send(topic, value) for value in expected()]
    producer.flush(20)
    assert [f.get(10).offset for f in futures] == list(range(COUNT))
    producer.close()
    assert asyncio.run(read(broker.bootstrap, topic, committed=False, until=COUNT)) == expected()


async def test_aiokafka_transactions_and_read_committed(broker: BrokerProcess) -> None:
    topic = unique("txn-aio")
    producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, transactional_id=unique("tid"))
    await producer.start()
    try:
        async with producer.transaction():
            for i in range(3):
                await producer.send_and_wait(topic, b"committed-%d" % i)
        await producer.begin_transaction()
        for i in range(3):
            await producer.send_and_wait(topic, b"aborted-%d" % i)
        await producer.abort_transaction()
        async with producer.transaction():
            await producer.send_and_wait(topic, b"after")
        committed = [b"committed-0", b"committed-1", b"committed-2", b"after"]
        assert await read(broker.bootstrap, topic, committed=True, until=4) == committed
        everything = await read(broker.bootstrap, topic, committed=False, until=7)
        assert everything == [*committed[:3], b"aborted-0", b"aborted-1", b"aborted-2", b"after"]

        # An open transaction holds read_committed consumers at its first offset.
        await producer.begin_transaction()
        await producer.send_and_wait(topic, b"open")
        assert await read(broker.bootstrap, topic, committed=True, timeout_ms=1000) == committed
        assert (await read(broker.bootstrap, topic, committed=False, until=8))[-1] == b"open"
        await producer.commit_transaction()
        assert await read(broker.bootstrap, topic, committed=True, until=5) == [*committed, b"open"]
    finally:
        await producer.stop()
