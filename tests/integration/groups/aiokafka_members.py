"""aiokafka group members, topics and produce, for the group tests."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from tests.polling import async_wait_until

FAST = {"session_timeout_ms": 3000, "heartbeat_interval_ms": 300, "auto_offset_reset": "earliest",
        "metadata_max_age_ms": 1000}


async def make_topic(bootstrap: str, topic: str, partitions: int, records: int) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, partitions, 1)])
    finally:
        await admin.close()
    await produce(bootstrap, topic, partitions, range(records))


async def produce(bootstrap: str, topic: str, partitions: int, values: Iterable[int]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for i in values:
            await producer.send_and_wait(topic, str(i).encode(), partition=i % partitions)
    finally:
        await producer.stop()


async def wait_for(predicate: object, timeout: float = 20.0) -> None:
    await async_wait_until(predicate, timeout, interval=0.1)  # type: ignore[arg-type]


class Member:
    """A consumer that keeps polling in the background, recording what it saw."""

    def __init__(self, bootstrap: str, topic: str, group: str, **kw: object) -> None:
        self.consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group, **{**FAST, **kw})
        self.seen: list[int] = []
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.consumer.start()
        self.task = asyncio.ensure_future(self._poll())

    async def _poll(self) -> None:
        while True:
            batches = await self.consumer.getmany(timeout_ms=100)
            for msgs in batches.values():
                self.seen.extend(int(m.value) for m in msgs)

    def assignment(self) -> set[TopicPartition]:
        return set(self.consumer.assignment())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        await self.consumer.stop()
