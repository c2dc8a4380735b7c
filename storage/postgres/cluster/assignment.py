"""The controller's choice of partition leaders over the live brokers: pure, so it is
tested without a database.

Each topic's partitions are spread evenly (the counts of two brokers differ by one at
most), moving as few leaders as possible: a leader on a live broker keeps its partitions up
to its share; the rest go to the brokers furthest below theirs, the least loaded over all
topics first, so that many small topics do not all land on the lowest node id.

With racks (`broker.rack`) the brokers' shares stay as they are, and the extra partitions of
a topic that does not divide evenly go to brokers on the racks holding fewest of its
partitions: a topic of fewer partitions than brokers lands on as many racks as it can, as
Kafka's rack-aware placement alternates racks (`AdminUtils.assignReplicasToBrokersRackAware`).
A broker without a rack counts as a rack of its own, so without racks the choice is the
rack-unaware one.
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
    racks: Mapping[int, str | None] | None = None,
) -> dict[PartitionKey, int | None]:
    """The leader of every partition (None when no broker is live); `racks` gives the live
    brokers' racks."""
    brokers = sorted(set(live))
    # A broker without a rack is a rack of its own (keyed by its id, apart from every name).
    rack_of: dict[int, tuple[str, int]] = {
        b: (name, 0) if (name := (racks or {}).get(b)) else ("", b) for b in brokers
    }
    rack_size: dict[tuple[str, int], int] = defaultdict(int)
    for b in brokers:
        rack_size[rack_of[b]] += 1
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
        # The brokers holding most keep one more (fewer moves); among equals, those whose
        # rack will hold fewest of this topic, then the least loaded.
        share = dict.fromkeys(brokers, base)
        on_rack = {r: base * n for r, n in rack_size.items()}
        for _ in range(extra):
            pick = min((b for b in brokers if share[b] == base),
                       key=lambda b: (-len(held[b]), on_rack[rack_of[b]], load[b], b))
            share[pick] += 1
            on_rack[rack_of[pick]] += 1
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
