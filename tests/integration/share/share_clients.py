"""confluent-kafka's ShareConsumer against the broker: topics, records and share groups."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable

from confluent_kafka import Message, Producer, ShareConsumer
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic


def new_name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def create_topic(bootstrap: str, partitions: int = 1) -> str:
    name = new_name("share")
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(15)
    return name


def produce(bootstrap: str, topic: str, values: Iterable[str], batch: int = 0) -> None:
    """With `batch`, flushed every `batch` records: batches of that size (a share partition
    acquires whole batches, as Kafka's batch-optimized acquisition)."""
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i, v in enumerate(values, 1):
        p.produce(topic, value=v.encode())
        if batch and i % batch == 0:
            assert p.flush(15) == 0
    assert p.flush(15) == 0


def share_group(bootstrap: str, **configs: str) -> str:
    """A new share group reading from the earliest offset, with the given group configs."""
    group = new_name("sg")
    entries = [ConfigEntry("share.auto.offset.reset", "earliest", incremental_operation=AlterConfigOpType.SET)]
    entries += [ConfigEntry(k.replace("_", "."), v, incremental_operation=AlterConfigOpType.SET)
                for k, v in configs.items()]
    resource = ConfigResource(ConfigResource.Type.GROUP, group, incremental_configs=entries)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.incremental_alter_configs([resource])[resource].result(15)
    return group


def consumer(bootstrap: str, group: str, topic: str, *, explicit: bool = False, **extra: str) -> ShareConsumer:
    c = ShareConsumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "share.acknowledgement.mode": "explicit" if explicit else "implicit",
        **extra,
    })
    c.subscribe([topic])
    return c


def poll_records(c: ShareConsumer, timeout: float = 1.0) -> list[Message]:
    out = []
    for m in c.poll(timeout):
        assert m.error() is None, m.error()
        out.append(m)
    return out


def poll_until(c: ShareConsumer, want: int, timeout: float = 30.0) -> list[Message]:
    """Polls (implicit mode) until `want` records arrived or the timeout ran out."""
    got: list[Message] = []
    deadline = time.monotonic() + timeout
    while len(got) < want and time.monotonic() < deadline:
        got += poll_records(c)
    return got
