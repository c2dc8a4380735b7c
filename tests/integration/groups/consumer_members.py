"""KIP-848 consumers (confluent-kafka) and their assignments, for the group tests."""

from __future__ import annotations

import time
from collections.abc import Callable

from confluent_kafka import Consumer, Message


def consumer(bs: str, group: str, **extra: object) -> Consumer:
    conf: dict[str, object] = {"bootstrap.servers": bs, "group.id": group, "group.protocol": "consumer",
                               "auto.offset.reset": "earliest", "enable.auto.commit": False,
                               "topic.metadata.refresh.interval.ms": 1000}
    conf.update(extra)
    return Consumer(conf)


def assigned(c: Consumer) -> set[tuple[str, int]]:
    return {(tp.topic, tp.partition) for tp in c.assignment()}


def poll_until(consumers: list[Consumer], done: Callable[[], bool], seconds: float = 40,
               on_message: Callable[[int, Message], None] | None = None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not done():
        for i, c in enumerate(consumers):
            msg = c.poll(0.05)
            if msg is not None and msg.error() is None and on_message is not None:
                on_message(i, msg)
    assert done()
