"""Produces a few records to the broker and reads them back, then exits: a stock client
(aiokafka) on the compose network, speaking to the INTERNAL listener."""

from __future__ import annotations

import asyncio
import os
import sys

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.errors import KafkaConnectionError

BOOTSTRAP = os.environ.get("BOOTSTRAP_SERVERS", "odradek:29092")
TOPIC = os.environ.get("DEMO_TOPIC", "demo")
COUNT = int(os.environ.get("DEMO_RECORDS", "10"))


async def start_with_retries(client: AIOKafkaProducer | AIOKafkaConsumer) -> None:
    # Compose tools that ignore `service_healthy` start the demo before the broker answers.
    for attempt in range(30):
        try:
            await client.start()
            return
        except KafkaConnectionError:
            if attempt == 29:
                raise
            await asyncio.sleep(1)


async def main() -> int:
    producer = AIOKafkaProducer(bootstrap_servers=BOOTSTRAP, acks="all", enable_idempotence=True)
    await start_with_retries(producer)
    try:
        for i in range(COUNT):
            meta = await producer.send_and_wait(TOPIC, f"demo record {i}".encode(), key=b"demo")
            print(f"produced {TOPIC}-{meta.partition}@{meta.offset}")
    finally:
        await producer.stop()
    consumer = AIOKafkaConsumer(
        TOPIC, bootstrap_servers=BOOTSTRAP, group_id="demo", auto_offset_reset="earliest",
        isolation_level="read_committed",
    )
    await start_with_retries(consumer)
    seen = 0
    try:
        while seen < COUNT:
            batch = await asyncio.wait_for(consumer.getmany(timeout_ms=1000), 30)
            for records in batch.values():
                for record in records:
                    print(f"consumed {record.topic}-{record.partition}@{record.offset}: {record.value!r}")
                    seen += 1
    finally:
        await consumer.stop()
    print(f"demo done: {seen} records")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
