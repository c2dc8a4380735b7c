"""The controller's choice of partition leaders over the live brokers: pure, so it is
tested without a database.

Each topic's partitions are spread evenly (the counts of two brokers differ by one at
most), moving as few leaders as possible: a leader on a live broker keeps its partitions up
to its share; the rest go to the brokers furthest below theirs, the least loaded over all
topics first, so that many small topics do not all land on the lowest node id.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable, Mapping

PartitionKey = tuple[uuid.UUID, int]


def assign(
    partitions: Iterable[PartitionKey],
    current: Mapping[PartitionKey, int | None],
    live: Iterable[int],
) -> dict[PartitionKey, int | None]:
    """The leader of every partition (None when no broker is live)."""
    brokers = sorted(set(live))
    by_topic: dict[uuid.UUID, list[int]] = defaultdict(list)
    for topic_id, partition in partitions:
        by_topic[topic_id].append(partition)
    if not brokers:
        return {(t, p): None for t, ps in by_topic.items() for p in ps}
    load = dict.fromkeys(brokers, 0)  # leaders over all topics, as assigned so far
    result: dict[PartitionKey, int | None] = {}
    for topic_id in sorted(by_topic):
        keys = [(topic_id, p) for p in sorted(by_topic[topic_id])]
        held: dict[int, list[PartitionKey]] = {b: [] for b in brokers}
        for key in keys:
            leader = current.get(key)
            if leader in held:
                held[leader].append(key)
        base, extra = divmod(len(keys), len(brokers))
        # The brokers holding most keep one more: fewer moves.
        ranked = sorted(brokers, key=lambda b: (-len(held[b]), load[b], b))
        share = {b: base + (1 if i < extra else 0) for i, b in enumerate(ranked)}
        orphans: list[PartitionKey] = []
        for broker in brokers:
            kept = held[broker][: share[broker]]
            orphans.extend(held[broker][share[broker]:])
            for key in kept:
                result[key] = broker
            share[broker] -= len(kept)
            load[broker] += len(kept)
        orphans.extend(k for k in keys if current.get(k) not in held)
        orphans.sort()
        for key in orphans:
            broker = min(brokers, key=lambda b: (-share[b], load[b], b))
            result[key] = broker
            share[broker] -= 1
            load[broker] += 1
    return result
