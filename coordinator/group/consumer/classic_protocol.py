"""The consumer protocol's embedded formats (Kafka's ConsumerProtocol) as a consumer group
reads and writes them for its classic members and for the conversion between the
protocols: the partitions a ConsumerProtocolSubscription owns, and ConsumerProtocolAssignment
bytes."""

from __future__ import annotations

from collections.abc import Iterable

from coordinator.group.consumer.assignors import Partition
from protocol.messages.consumer_protocol_assignment import ConsumerProtocolAssignment
from protocol.messages.consumer_protocol_assignment import TopicPartition as AssignedTopic
from protocol.messages.consumer_protocol_subscription import ConsumerProtocolSubscription


def owned_partitions(sub: ConsumerProtocolSubscription) -> frozenset[Partition]:
    return frozenset((t.topic, p) for t in sub.owned_partitions for p in t.partitions)


def encode_assignment(partitions: Iterable[Partition]) -> bytes:
    """A ConsumerProtocolAssignment v0 (every client reads it)."""
    by_topic: dict[str, list[int]] = {}
    for topic, p in sorted(partitions):
        by_topic.setdefault(topic, []).append(p)
    body = ConsumerProtocolAssignment([AssignedTopic(t, ps) for t, ps in by_topic.items()]).encode(0)
    return (0).to_bytes(2, "big") + body


def decode_assignment(data: bytes) -> frozenset[Partition]:
    if len(data) < 2:
        return frozenset()
    version = int.from_bytes(data[:2], "big", signed=True)
    try:
        a = ConsumerProtocolAssignment.decode(data[2:], min(max(version, 0), ConsumerProtocolAssignment.MAX_VERSION))
    except Exception:
        return frozenset()
    return frozenset((t.topic, p) for t in a.assigned_partitions for p in t.partitions)
