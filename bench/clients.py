"""Client plumbing shared by the workloads: configs with timeouts, topic creation, payloads."""

from __future__ import annotations

import os
import struct
import time
import uuid
from typing import Any

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

#: Per-request timeout given to every client, so a broker that stops answering shows as an
#: error rather than a hung bench.
REQUEST_TIMEOUT_MS = 15_000

_STAMP = struct.Struct(">q")


class WorkloadError(Exception):
    """A workload that ran against a broker that misbehaved: the message is the table cell."""


def unique(prefix: str) -> str:
    return f"bench-{prefix}-{uuid.uuid4().hex[:10]}"


def payload(size: int) -> bytes:
    """Incompressible bytes of the given size (no client compresses, but a broker might)."""
    return os.urandom(size)


def stamped(size: int) -> bytes:
    """A payload that starts with the monotonic clock in nanoseconds."""
    return _STAMP.pack(time.monotonic_ns()) + b"\0" * max(0, size - _STAMP.size)


def stamp_of(value: bytes) -> int:
    return int(_STAMP.unpack_from(value)[0])


def confluent_base(bootstrap: str) -> dict[str, Any]:
    return {
        "bootstrap.servers": bootstrap,
        "socket.timeout.ms": REQUEST_TIMEOUT_MS,
        "socket.connection.setup.timeout.ms": 10_000,
        "broker.address.family": "v4",
        "log_level": 3,
    }


def producer_config(bootstrap: str, acks: str, idempotent: bool, **extra: Any) -> dict[str, Any]:
    conf = confluent_base(bootstrap)
    conf.update(
        {
            "acks": acks,
            "enable.idempotence": idempotent,
            "message.timeout.ms": 30_000,
            "request.timeout.ms": REQUEST_TIMEOUT_MS,
            "queue.buffering.max.kbytes": 262_144,
            # Delivery callbacks run only for failures, so Python is not called per record.
            "delivery.report.only.error": True,
        }
    )
    conf.update(extra)
    return conf


_admins: dict[str, AdminClient] = {}


def admin_client(bootstrap: str) -> AdminClient:
    """One admin client per broker for the life of the worker process: a fresh client
    spends its first second looking up the controller."""
    admin = _admins.get(bootstrap)
    if admin is None:
        admin = _admins[bootstrap] = AdminClient(confluent_base(bootstrap))
    return admin


def create_topic(bootstrap: str, name: str, partitions: int = 1, timeout: float = 30.0) -> None:
    admin = admin_client(bootstrap)
    futures = admin.create_topics(
        [NewTopic(name, num_partitions=partitions, replication_factor=1)],
        operation_timeout=timeout,
        request_timeout=timeout,
    )
    try:
        futures[name].result(timeout)
    except KafkaException as exc:
        raise WorkloadError(f"create topic: {exc.args[0].str() if exc.args else exc}") from None
    wait_for_partitions(bootstrap, name, partitions, timeout)


def wait_for_partitions(bootstrap: str, name: str, partitions: int, timeout: float) -> None:
    """Wait until metadata shows every partition with a leader."""
    admin = admin_client(bootstrap)
    deadline = time.monotonic() + timeout
    seen = 0
    while time.monotonic() < deadline:
        meta = admin.list_topics(name, timeout=max(1.0, deadline - time.monotonic()))
        topic = meta.topics.get(name)
        if topic is not None and topic.error is None:
            seen = sum(1 for p in topic.partitions.values() if p.leader >= 0)
            if seen == partitions:
                return
        time.sleep(0.1)
    raise WorkloadError(f"metadata shows {seen} of {partitions} partitions")


def produce_all(
    producer: Producer,
    topic: str,
    value: bytes,
    count: int,
    timeout: float,
    partitions: int = 1,
    on_delivery: Any = None,
) -> None:
    """Produce `count` records round-robin over the partitions and wait for every
    acknowledgement; raise on any delivery error or when time runs out."""
    failures: list[str] = []

    def count_failures(err: Any, _msg: Any) -> None:
        if err is not None and len(failures) < 3:
            failures.append(err.str())

    callback = on_delivery or count_failures
    deadline = time.monotonic() + timeout
    produce = producer.produce
    for i in range(count):
        while True:
            try:
                produce(topic, value, partition=i % partitions, on_delivery=callback)
                break
            except BufferError:
                producer.poll(0.005)
                if time.monotonic() > deadline:
                    raise WorkloadError(f"timed out after {timeout:.0f}s with the queue full") from None
        if i % 1000 == 0:
            producer.poll(0)
    remaining = producer.flush(max(0.1, deadline - time.monotonic()))
    if remaining:
        raise WorkloadError(f"{remaining} of {count} records unacknowledged after {timeout:.0f}s")
    if failures:
        raise WorkloadError(f"delivery failed: {failures[0]}")


PREFILL_STALL_SECONDS = 1.0


def prefill(bootstrap: str, topic: str, value: bytes, count: int, timeout: float, **producer_extra: Any) -> None:
    """Fill partition 0 of `topic` with acks=1 and wait until all of it is visible (the
    high watermark at `count`): an acks=1 record becomes readable once its write is durable,
    and the consume rows must time reading, not the end of the fill's write-back."""
    producer = Producer(producer_config(bootstrap, "1", False, **producer_extra))
    produce_all(producer, topic, value, count, timeout)
    consumer = Consumer({**confluent_base(bootstrap), "group.id": unique("prefill"), "enable.auto.commit": False})
    try:
        deadline = time.monotonic() + timeout
        high, moved = -1, time.monotonic()
        while time.monotonic() < deadline:
            _, now_high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
            if now_high >= count:
                return
            if now_high != high:
                high, moved = now_high, time.monotonic()
            elif time.monotonic() - moved > PREFILL_STALL_SECONDS:
                # A watermark that stopped short (Tansu's stays a batch behind): the consumer
                # reads what there is and reports a shortfall itself.
                return
            time.sleep(0.01)
        raise WorkloadError(f"high watermark {high} of {count} after {timeout:.0f}s")
    finally:
        consumer.close()
