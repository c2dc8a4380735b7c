"""Which partition of an internal topic owns a group or transactional id, as Kafka computes it."""

from __future__ import annotations


def java_string_hashcode(s: str) -> int:
    """Java's String.hashCode: over UTF-16 code units, wrapping at 32 bits (signed)."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def partition_for(key: str, num_partitions: int) -> int:
    """Kafka's Utils.abs(hashCode) % partitions, where abs(Integer.MIN_VALUE) is 0.

    Serves both coordinators: group ids over offsets.topic.num.partitions and
    transactional ids over transaction.state.log.num.partitions."""
    h = java_string_hashcode(key)
    return (0 if h == -(1 << 31) else abs(h)) % num_partitions
