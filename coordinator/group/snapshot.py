"""What a group was before a write (Kafka's CoordinatorRuntime keeps a snapshot of its
timeline per write): a consumer group is put back to it before its records are replayed,
and every group is put back to it when the write's append fails.

The group objects themselves go back into the runtime's tables, with their fields as they
were: timers and waiting requests hold the objects, and find them again. A classic group's
offsets are not part of it: offsets change only by their own records, once durable
(`OffsetStore.replay`)."""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import fields
from typing import Any

from coordinator.group.classic.group import ClassicGroup
from coordinator.group.consumer.group import ConsumerGroup

# ClassicGroup fields a write never changes, or that are restored their own way.
_CLASSIC_KEPT = frozenset({"group_id", "offsets"})


class GroupSnapshot:
    def __init__(self, group_id: str, classic: ClassicGroup | None, consumer: ConsumerGroup | None) -> None:
        self.group_id = group_id
        self.classic = classic
        self.consumer = consumer
        # Copies of the fields (not of the objects): see `_classic_fields`, `_consumer_fields`.
        self._classic_fields = _classic_fields(classic) if classic is not None else {}
        self._consumer_fields = _consumer_fields(consumer) if consumer is not None else {}

    def restore(self, groups: dict[str, ClassicGroup], consumer_groups: dict[str, ConsumerGroup],
                classic_now: ClassicGroup | None, consumer_now: ConsumerGroup | None) -> None:
        """Put the groups back as they were; `*_now` are what the write left registered
        (an entry something else has replaced since is left alone)."""
        self.restore_classic(groups, classic_now)
        self.restore_consumer(consumer_groups, consumer_now)

    def restore_classic(self, groups: dict[str, ClassicGroup], classic_now: ClassicGroup | None) -> None:
        if groups.get(self.group_id) is classic_now:
            _put(groups, self.group_id, self.classic)
            if self.classic is not None:
                for name, value in self._classic_fields.items():
                    setattr(self.classic, name, value)

    def restore_consumer(self, consumer_groups: dict[str, ConsumerGroup], consumer_now: ConsumerGroup | None) -> None:
        if consumer_groups.get(self.group_id) is consumer_now:
            _put(consumer_groups, self.group_id, self.consumer)
            if self.consumer is not None:
                # The saved copies themselves: a snapshot is restored once at most.
                for name, value in self._consumer_fields.items():
                    setattr(self.consumer, name, value)


def _classic_fields(group: ClassicGroup) -> dict[str, Any]:
    """Its fields, containers copied; the Member objects are shared (a write does not
    change them: the requests they complete are completed after the append)."""
    out: dict[str, Any] = {}
    for name, value in vars(group).items():
        if name in _CLASSIC_KEPT:
            continue
        if isinstance(value, Counter):
            value = Counter(value)
        elif isinstance(value, (dict, set, list)):
            value = copy.copy(value)
        out[name] = value
    return out


def _consumer_fields(group: ConsumerGroup) -> dict[str, Any]:
    """Its fields, containers copied, and each member copied: a member's fields are
    immutable values (assignments are frozen), so a shallow copy of each is the member as
    it was. Linear in members and partitions, with no deep copy on every heartbeat."""
    out: dict[str, Any] = {}
    for f in fields(group):
        value = getattr(group, f.name)
        if f.name == "members":
            value = {member_id: member.copy() for member_id, member in value.items()}
        elif isinstance(value, (dict, set, list)):
            value = copy.copy(value)
        out[f.name] = value
    return out


def _put(table: dict[str, Any], key: str, value: Any) -> None:
    if value is None:
        table.pop(key, None)
    else:
        table[key] = value
