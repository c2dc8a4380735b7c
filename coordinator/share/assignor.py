"""The share groups' server-side assignor, "simple" (Kafka's `SimpleAssignor`).

Partitions of a share group may be assigned to several members at once: a partition is
shared by ceil(subscribers / partitions) members, so that every member gets partitions even
when members outnumber them, and the members' counts differ by at most one (balance comes
before stickiness). Members keep what they had where balance allows."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

ASSIGNOR_NAME = "simple"

TopicPartition = tuple[str, int]


@dataclass(frozen=True)
class MemberSpec:
    subscribed_topics: frozenset[str]
    # What the member holds now (its target assignment of the previous epoch).
    current: frozenset[TopicPartition] = frozenset()


def assign(
    members: Mapping[str, MemberSpec], partitions_per_topic: Mapping[str, int]
) -> dict[str, frozenset[TopicPartition]]:
    """The target assignment: member id -> the topic partitions it may fetch. Topics that do
    not exist (absent from `partitions_per_topic`) are left out."""
    subscribers: dict[str, list[str]] = {}
    for member_id in sorted(members):
        for topic in members[member_id].subscribed_topics:
            if partitions_per_topic.get(topic, 0) > 0:
                subscribers.setdefault(topic, []).append(member_id)
    sharing = {t: math.ceil(len(subs) / partitions_per_topic[t]) for t, subs in subscribers.items()}
    cap = _quotas(members, subscribers, sharing, partitions_per_topic)

    held: dict[str, set[TopicPartition]] = {m: set() for m in members}
    holders: dict[TopicPartition, list[str]] = {}
    # 1. Stickiness: keep what is still subscribed and exists, within the caps.
    for m in sorted(members):
        for tp in sorted(members[m].current):
            topic, index = tp
            if topic not in subscribers or m not in subscribers[topic]:
                continue
            if index >= partitions_per_topic[topic] or len(held[m]) >= cap[m]:
                continue
            if len(holders.get(tp, [])) >= sharing[topic]:
                continue
            held[m].add(tp)
            holders.setdefault(tp, []).append(m)
    # 2. Every partition gets its share of members, the least loaded first.
    for topic in sorted(subscribers):
        for index in range(partitions_per_topic[topic]):
            tp = (topic, index)
            owners = holders.setdefault(tp, [])
            candidates = [m for m in subscribers[topic] if tp not in held[m]]
            while len(owners) < sharing[topic] and candidates:
                best = min(candidates, key=lambda m: (len(held[m]) >= cap[m], len(held[m]), m))
                candidates.remove(best)
                held[best].add(tp)
                owners.append(best)
    return {m: frozenset(tps) for m, tps in held.items()}


def _quotas(
    members: Mapping[str, MemberSpec],
    subscribers: Mapping[str, list[str]],
    sharing: Mapping[str, int],
    partitions_per_topic: Mapping[str, int],
) -> dict[str, int]:
    """How many partitions each member should hold: its part of the slots (partition x
    sharing) of the topics it subscribes to, rounded down, and the slots left over handed
    out one each, first to the members that already hold the most (fewer moves)."""
    fair = {
        m: sum(sharing[t] * partitions_per_topic[t] / len(subscribers[t]) for t in spec.subscribed_topics if t in subscribers)
        for m, spec in members.items()
    }
    quota = {m: math.floor(f + 1e-9) for m, f in fair.items()}
    slots = sum(sharing[t] * partitions_per_topic[t] for t in subscribers)
    left = slots - sum(quota.values())
    rounded_up = sorted(
        (m for m in members if fair[m] - quota[m] > 1e-9),
        key=lambda m: (-len(members[m].current), m),
    )
    for m in rounded_up[: max(left, 0)]:
        quota[m] += 1
    return quota
