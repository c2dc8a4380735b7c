"""A consume-transform-produce worker, run as its own process so a test can SIGKILL it.

usage: python -m tests.integration.transactions.eos_worker CLIENT BOOTSTRAP INPUT OUTPUT GROUP TRANSACTIONAL_ID PAUSE_AT MID_FILE

Copies every record of INPUT to OUTPUT ("in-N" becomes "out-N", same partition) in
transactions of up to 5 records, with the consumed offsets sent to each transaction.
The transaction numbered PAUSE_AT (counting from 0; -1: none) writes its records, then
creates MID_FILE and hangs with the transaction open. Exits 0 once it has committed
everything up to the end of INPUT.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tests.integration.transactions.txn_clients import TP, TxnProducer, end_offsets

BATCH = 5
DEADLINE = 40.0


def transform(value: bytes) -> bytes:
    return b"out-" + value.split(b"-", 1)[1]


class Consumer:
    """Subscribed to INPUT in GROUP, read_committed, offsets only through transactions."""

    def __init__(self, client: str, bootstrap: str, topic: str, group: str) -> None:
        self.client = client
        if client == "aiokafka":
            import asyncio

            from aiokafka import AIOKafkaConsumer

            self.loop = asyncio.new_event_loop()

            async def make() -> AIOKafkaConsumer:
                c = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                                     isolation_level="read_committed", enable_auto_commit=False,
                                     auto_offset_reset="earliest", session_timeout_ms=6000)
                await c.start()
                return c

            self.c = self.loop.run_until_complete(make())
        elif client == "confluent":
            from confluent_kafka import Consumer as CConsumer

            self.c = CConsumer({"bootstrap.servers": bootstrap, "group.id": group,
                                "isolation.level": "read_committed", "enable.auto.commit": False,
                                "auto.offset.reset": "earliest", "session.timeout.ms": 6000})
            self.c.subscribe([topic])
        else:
            from kafka import KafkaConsumer

            self.c = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                                   isolation_level="read_committed", enable_auto_commit=False,
                                   auto_offset_reset="earliest", session_timeout_ms=6000)

    def poll(self) -> list[tuple[TP, int, bytes]]:
        if self.client == "aiokafka":
            batch = self.loop.run_until_complete(self.c.getmany(timeout_ms=300, max_records=BATCH))
            return [((tp.topic, tp.partition), m.offset, m.value) for tp, ms in batch.items() for m in ms]
        if self.client == "confluent":
            out = []
            for m in self.c.consume(BATCH, 0.3):
                if m.error() is None:
                    out.append(((m.topic(), m.partition()), m.offset(), m.value()))
            return out
        batch = self.c.poll(timeout_ms=300, max_records=BATCH)
        return [((tp.topic, tp.partition), m.offset, m.value) for tp, ms in batch.items() for m in ms]

    def position(self, tp: TP) -> int:
        if self.client == "aiokafka":
            from aiokafka import TopicPartition

            if TopicPartition(*tp) not in self.c.assignment():
                return -1
            return int(self.loop.run_until_complete(self.c.position(TopicPartition(*tp))))
        if self.client == "confluent":
            from confluent_kafka import TopicPartition as CTP

            return int(self.c.position([CTP(*tp)])[0].offset)
        from kafka import TopicPartition as KTP

        if KTP(*tp) not in self.c.assignment():
            return -1
        return int(self.c.position(KTP(*tp)))

    def group_metadata(self) -> object:
        if self.client == "aiokafka":
            return None  # aiokafka sends the group id only
        if self.client == "confluent":
            return self.c.consumer_group_metadata()
        return self.c.group_metadata()


def main() -> int:
    client, bootstrap, input_topic, output_topic, group, tid, pause_at, mid_file = sys.argv[1:9]
    producer = TxnProducer(client, bootstrap, tid)
    producer.init()
    consumer = Consumer(client, bootstrap, input_topic, group)
    n_txn = 0
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        records = consumer.poll()
        if not records:
            ends = end_offsets(bootstrap, [(input_topic, p) for p in (0, 1)], committed=True)
            # Every record polled so far was committed; stop once nothing is left.
            if all(consumer.position(tp) >= end for tp, end in ends.items()):
                return 0
            continue
        producer.begin()
        offsets: dict[TP, int] = {}
        for tp, offset, value in records:
            producer.send(output_topic, tp[1], transform(value))
            offsets[tp] = max(offsets.get(tp, 0), offset + 1)
        producer.send_offsets(offsets, group, consumer.group_metadata())
        if n_txn == int(pause_at):
            producer.flush()
            Path(mid_file).write_text("mid")
            time.sleep(DEADLINE)
        producer.commit()
        n_txn += 1
    return 1


if __name__ == "__main__":
    sys.exit(main())
