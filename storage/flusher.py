"""Group commit: one fsync round serves every durable append waiting at that moment.

Writers mark the files they touched dirty and `await sync()`. When no round is running
a round starts at once and fsyncs every dirty file in a worker thread; callers that
arrive while a round is in flight wait for the next round, which starts as soon as the
current one ends and covers all of them.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from .errors import KafkaStorageError


class Syncable(Protocol):
    def sync(self) -> None: ...


class GroupCommitFlusher:
    def __init__(self) -> None:
        self._dirty: dict[int, Syncable] = {}
        self._running: asyncio.Future[None] | None = None
        self._next: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self.rounds = 0  # fsync rounds completed (observability and tests)
        self.files_synced = 0

    def mark_dirty(self, target: Syncable) -> None:
        self._dirty[id(target)] = target

    def discard(self, target: Syncable) -> None:
        self._dirty.pop(id(target), None)

    @property
    def has_dirty(self) -> bool:
        return bool(self._dirty)

    async def sync(self) -> None:
        """Return once everything written before this call is durable."""
        if not self._dirty:
            # Everything written so far is either durable or in the running round.
            if self._running is not None:
                await asyncio.shield(self._running)
            return
        waiter = self._next
        if waiter is None:
            waiter = self._next = asyncio.get_running_loop().create_future()
            if self._running is None:
                self._start_round()
        await asyncio.shield(waiter)

    def _start_round(self) -> None:
        future, self._next = self._next, None
        assert future is not None
        targets = list(self._dirty.values())
        self._dirty.clear()
        self._running = future
        self._task = asyncio.get_running_loop().create_task(self._run(targets, future))

    async def _run(self, targets: list[Syncable], future: asyncio.Future[None]) -> None:
        try:
            await asyncio.to_thread(_sync_all, targets)
        except OSError as exc:
            future.set_exception(KafkaStorageError(f"fsync failed: {exc}"))
            future.exception()  # waiters may all be gone; don't warn about it
        except BaseException as exc:  # cancelled at shutdown: release the waiters
            future.set_exception(KafkaStorageError(f"fsync interrupted: {exc!r}"))
            future.exception()
            raise
        else:
            future.set_result(None)
        finally:
            self.rounds += 1
            self.files_synced += len(targets)
            self._running = None
            if self._next is not None:
                self._start_round()

    def sync_now(self) -> None:
        """Synchronous flush of every dirty file (shutdown, checkpoints in a thread)."""
        targets = list(self._dirty.values())
        self._dirty.clear()
        _sync_all(targets)

    async def close(self) -> None:
        while self._running is not None or self._next is not None:
            running = self._running or self._next
            assert running is not None
            with contextlib.suppress(KafkaStorageError):
                await asyncio.shield(running)


def _sync_all(targets: list[Syncable]) -> None:
    for target in targets:
        target.sync()
