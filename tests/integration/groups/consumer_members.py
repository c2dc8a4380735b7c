"""KIP-848 consumers (confluent-kafka) and their assignments, for the group tests."""

from __future__ import annotations

import time
from collections.abc import Callable

from confluent_kafka import Consumer, KafkaError, Message


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


def poll_until_positioned(c: Consumer, partitions: int, others: tuple[Consumer, ...] = (),
                          seconds: float = 40) -> None:
    """Polls `c` (a consumer with `enable.partition.eof`), and `others` (their messages
    dropped), until it holds `partitions` partitions and has reported the end of each in its
    current assignment: each fetcher runs at a known position, no ListOffsets of
    `auto.offset.reset` is left in flight. librdkafka
    answers a ListOffsets reply that a rebalance made outdated by looking the offset up again
    500 ms later, whatever the partition's position is by then (`rd_kafka_toppar_handle_Offset`
    -> `rd_kafka_toppar_offset_retry`): a rebalance with lookups in flight can send the member
    back to `auto.offset.reset` on partitions it was since given at their committed offsets."""
    ends: set[tuple[str, int]] = set()
    held: set[tuple[str, int]] = set()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not (len(held) == partitions and held <= ends):
        for other in others:
            other.poll(0.05)
        msg = c.poll(0.05)
        now = assigned(c)
        if now != held:
            # A new assignment: ends reported for the previous one say nothing of it.
            held, ends = now, set()
        error = msg.error() if msg is not None else None
        if msg is not None and error is not None and error.code() == KafkaError._PARTITION_EOF:
            ends.add((msg.topic() or "", msg.partition() or 0))
    assert len(held) == partitions and held <= ends, f"ends reported for {sorted(ends)} of {sorted(held)}"
