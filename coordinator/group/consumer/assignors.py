"""The broker-side assignors of KIP-848 consumer groups (Kafka's UniformAssignor and
RangeAssignor in `org.apache.kafka.coordinator.group.assignor`).

An assignor is a pure function: the members' subscriptions, the partition counts of the
subscribed topics and the current target assignment in, the new target assignment out.
Partitions are named (topic name, partition)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

Partition = tuple[str, int]
Assignment = dict[str, set[Partition]]


@dataclass(frozen=True, slots=True)
class AssignorMember:
    subscribed_topics: frozenset[str]
    # The member's partitions in the current target assignment (kept where balance allows).
    current: frozenset[Partition]


Assignor = Callable[[Mapping[str, AssignorMember], Mapping[str, int]], Assignment]


def uniform(members: Mapping[str, AssignorMember], partition_counts: Mapping[str, int]) -> Assignment:
    """Sticky and balanced: every member subscribed to a partition's topic may get it; a
    member keeps what it has up to its share, the rest goes to the least loaded members."""
    result: Assignment = {m: set() for m in members}
    partitions = sorted((t, p) for t, n in partition_counts.items() for p in range(n)
                        if any(t in m.subscribed_topics for m in members.values()))
    if not members:
        return result
    eligible = {m: sum(1 for t, _ in partitions if t in spec.subscribed_topics) for m, spec in members.items()}
    # A member's fair share: what an even split of the partitions it can take would give it.
    total = len(partitions)
    quota = {m: -(-min(eligible[m], total) // len(members)) if eligible[m] else 0 for m in members}
    if all(spec.subscribed_topics == next(iter(members.values())).subscribed_topics for spec in members.values()):
        base, extra = divmod(total, len(members))
        quota = dict.fromkeys(members, base + (1 if extra else 0))
    taken: set[Partition] = set()
    # Stickiness: keep current partitions up to the quota, members in a stable order.
    for m in sorted(members):
        spec = members[m]
        for tp in sorted(spec.current):
            if len(result[m]) >= quota[m]:
                break
            if tp in taken or tp[0] not in spec.subscribed_topics or tp[1] >= partition_counts.get(tp[0], 0):
                continue
            result[m].add(tp)
            taken.add(tp)
    for tp in partitions:
        if tp in taken:
            continue
        candidates = [m for m, spec in members.items() if tp[0] in spec.subscribed_topics]
        if not candidates:
            continue
        owner = min(candidates, key=lambda m: (len(result[m]), m))
        result[owner].add(tp)
        taken.add(tp)
    _rebalance(result, members)
    return result


def _rebalance(result: Assignment, members: Mapping[str, AssignorMember]) -> None:
    """Move partitions from the most to the least loaded eligible member until no move
    lowers the spread (kept partitions may have left a member over its share)."""
    moved = True
    while moved:
        moved = False
        for rich in sorted(result, key=lambda m: (-len(result[m]), m)):
            for tp in sorted(result[rich]):
                poor = [m for m in result if tp[0] in members[m].subscribed_topics
                        and len(result[m]) + 1 < len(result[rich])]
                if poor:
                    target = min(poor, key=lambda m: (len(result[m]), m))
                    result[rich].discard(tp)
                    result[target].add(tp)
                    moved = True
                    break
            if moved:
                break


def range_(members: Mapping[str, AssignorMember], partition_counts: Mapping[str, int]) -> Assignment:
    """Per topic, contiguous ranges of partitions to the subscribed members in member-id
    order, the first (partitions % members) getting one more: partitions of co-partitioned
    topics land on the same member."""
    result: Assignment = {m: set() for m in members}
    for topic in sorted(partition_counts):
        subscribers = sorted(m for m, spec in members.items() if topic in spec.subscribed_topics)
        if not subscribers:
            continue
        base, extra = divmod(partition_counts[topic], len(subscribers))
        start = 0
        for i, m in enumerate(subscribers):
            n = base + (1 if i < extra else 0)
            result[m].update((topic, p) for p in range(start, start + n))
            start += n
    return result


ASSIGNORS: dict[str, Assignor] = {"uniform": uniform, "range": range_}
