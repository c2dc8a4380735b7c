"""Wake-ups for reads that wait on a partition's log to change (Kafka's DelayedFetch).

Every log of an engine reports its changes here: records, transaction markers and
coordinator records made durable (the high watermark or the last stable offset moved), the
log start moved, segments swapped in by the cleaner, the log deleted. A parked Fetch
waits on the partitions it reads and re-reads when one of them changed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from .eager_future import EagerFuture

PartitionKey = tuple[str, int]


class AppendSignal:
    """Per-partition wake-ups. A waiter has one future, registered under each partition it
    waits on, so a notify costs one dictionary lookup however many fetches are parked."""

    def __init__(self) -> None:
        # A waiter's result: True when woken by a change, False when its time ran out.
        self._waiters: dict[PartitionKey, set[EagerFuture[bool]]] = {}
        self._changes = 0

    @property
    def changes(self) -> int:
        """How many changes were reported so far. Read it before reading the logs and pass it
        to `wait`, so a change that happens while a read suspends is not slept through."""
        return self._changes

    def notify(self, topic: str, partition: int, *, now: bool = False) -> None:
        """`now`: the waiters' next steps run before this returns, when called outside any
        task (EagerFuture.resume_now): for records just made visible by the end of an fsync
        round, whose parked fetches then answer in the same turn of the event loop."""
        self._changes += 1
        waiters = self._waiters.pop((topic, partition), None)
        if waiters:
            for waiter in waiters:
                if not waiter.done():
                    if now:
                        waiter.resume_now(True)
                    else:
                        waiter.set_result(True)

    async def wait(self, partitions: Iterable[PartitionKey], timeout: float, *, since: int | None = None) -> bool:
        """Wait until one of `partitions` changes or `timeout` seconds pass; True when woken
        by a change (or when anything changed after `since`)."""
        if since is not None and since != self._changes:
            return True
        if timeout <= 0:
            return False
        loop = asyncio.get_running_loop()
        waiter: EagerFuture[bool] = EagerFuture(loop)
        keys = set(partitions)
        for key in keys:
            self._waiters.setdefault(key, set()).add(waiter)
        # The timer ends the wait itself rather than asyncio.wait_for, whose inner future
        # resumes the fetch a turn of the event loop later: beside a producer of megabyte
        # requests, a turn can hold a megabyte append, and every parked fetch of a small
        # record just made durable waited for it.
        expiry = loop.call_later(timeout, _expire, waiter)
        try:
            return await waiter
        finally:
            expiry.cancel()
            for key in keys:
                registered = self._waiters.get(key)
                if registered is not None:
                    registered.discard(waiter)
                    if not registered:
                        del self._waiters[key]

    def waiting(self, topic: str, partition: int) -> int:
        """How many waiters are parked on a partition (for tests and metrics)."""
        return len(self._waiters.get((topic, partition), ()))


def _expire(waiter: EagerFuture[bool]) -> None:
    if not waiter.done():
        waiter.resume_now(False)
