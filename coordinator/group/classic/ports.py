"""What classic/ needs of the group runtime that holds its groups: `GroupRuntime`
(`coordinator/group/runtime.py`) satisfies it. The runtime sits above classic/ and
consumer/ (it holds, snapshots and replays both kinds of groups), so they name what they
use of it as a Protocol instead of importing it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Hashable
from typing import Any, Protocol, TypeVar

from coordinator.group.classic.group import ClassicGroup
from coordinator.group.config import GroupConfig
from coordinator.log import Record
from protocol.errors import ErrorCode
from storage.clock import Clock

_T = TypeVar("_T")


class ClassicRuntime(Protocol):
    config: GroupConfig
    clock: Clock
    groups: dict[str, ClassicGroup]
    # Whether a group id is a share group's (no classic or consumer member may join it).
    share_group: Callable[[str], bool]

    def validate(self, group_id: str | None, allow_empty: bool) -> ErrorCode | None:
        """Kafka's validateGroupStatus: the error to answer, or None."""
        ...

    def current(self, group: ClassicGroup) -> bool:
        """Whether `group` is still the one registered under its id."""
        ...

    def new_group(self, group_id: str) -> ClassicGroup: ...

    def schedule(self, key: Hashable, delay_ms: int, action: Callable[[], None]) -> None:
        """Set (or replace) the timer named `key` once the running write is durable."""
        ...

    def cancel(self, key: Hashable) -> None: ...

    def after_write(self, effect: Callable[[], None]) -> None:
        """Run `effect` once the running write's records are durable."""
        ...

    async def append(self, group_id: str, records: list[Record]) -> int:
        """Append to the group's partition of the log; raises CoordinatorLogError."""
        ...

    def spawn(self, coro: Coroutine[Any, Any, _T]) -> asyncio.Task[_T]:
        """Run in the background, waited for by stop() and settle()."""
        ...
