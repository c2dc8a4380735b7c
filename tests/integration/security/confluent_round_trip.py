"""A confluent-kafka transaction and plain produce read back read_committed, over whatever
authentication the given client settings carry."""

from __future__ import annotations

import time
from typing import Any

from confluent_kafka import Consumer, Producer


def commit_and_read_back(
    auth: dict[str, Any], topic: str, in_transaction: bytes, plain: bytes | None = None
) -> list[bytes | None]:
    """Commits `in_transaction` in a transaction (then `plain` outside one, if given) and returns
    what a read_committed consumer of the topic reads, waiting up to 30 s for all of it."""
    producer = Producer({**auth, "transactional.id": f"tx-{topic}"})
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(topic, in_transaction)
    producer.commit_transaction(30)
    expected = 1
    if plain is not None:
        plain_producer = Producer(auth)
        plain_producer.produce(topic, plain)
        assert plain_producer.flush(30) == 0
        expected = 2
    consumer = Consumer(
        {**auth, "group.id": f"g-{topic}", "auto.offset.reset": "earliest", "isolation.level": "read_committed"}
    )
    consumer.subscribe([topic])
    got: list[bytes | None] = []
    deadline = time.monotonic() + 30
    try:
        while len(got) < expected and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                got.append(msg.value())
    finally:
        consumer.close()
    return got
