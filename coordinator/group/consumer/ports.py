"""What consumer/ needs of the group runtime: `GroupRuntime` (`coordinator/group/runtime.py`)
satisfies it. The runtime sits above consumer/ (it snapshots and replays consumer groups),
so consumer/ names what it uses of it as a Protocol instead of importing it; it reads the
classic groups of the same ids too, hence what classic/ needs (`classic/ports.py`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, TypeVar

from coordinator.group.classic.ports import ClassicRuntime
from coordinator.group.consumer.group import ConsumerGroup, TopicImage
from coordinator.group.timers import NamedTimers
from coordinator.log import CoordinatorLogError, Record

_T = TypeVar("_T")


class ConsumerRuntime(ClassicRuntime, Protocol):
    consumer_groups: dict[str, ConsumerGroup]
    timers: NamedTimers

    def learn_topics(self, topics: Mapping[str, TopicImage]) -> None:
        """Remember the topic ids these topics have (replay names partitions by id)."""
        ...

    async def write(self, group_id: str, operation: Callable[[], tuple[list[Record], _T]],
                    failed: Callable[[CoordinatorLogError], _T]) -> _T:
        """Run `operation`, append its records and answer its response once they are
        durable; `failed` answers a failed append (`GroupRuntime.write`)."""
        ...
