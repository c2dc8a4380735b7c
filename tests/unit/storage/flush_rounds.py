"""Holds the flusher's rounds so a test sees the log between a write and its fsync."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from storage.log_manager import LogManager


@dataclass
class Gate:
    """A dirty target whose sync (on the flusher's thread) waits until released: the round
    holding it, and every round after it, waits too."""

    loop: asyncio.AbstractEventLoop
    started: asyncio.Event
    release: asyncio.Event
    fail: bool = False

    def sync(self) -> None:
        self.loop.call_soon_threadsafe(self.started.set)
        asyncio.run_coroutine_threadsafe(self.release.wait(), self.loop).result()
        if self.fail:
            raise OSError(5, "Input/output error")


@contextlib.asynccontextmanager
async def rounds_held(storage: LogManager) -> AsyncIterator[Gate]:
    """The engine's flusher busy with a round that waits for the test (released at the end
    whatever happens, or closing the engine would wait for it): that of every open log (the
    file engine runs a lane of rounds per partition: storage.flusher.PartitionedFlusher)."""
    gate = Gate(asyncio.get_running_loop(), asyncio.Event(), asyncio.Event())
    storage.flusher.mark_dirty(gate)
    for log in storage.logs():
        log.flusher.mark_dirty(gate)
    pending = asyncio.ensure_future(storage.flusher.sync())
    try:
        await asyncio.wait_for(gate.started.wait(), 10)
        yield gate
    finally:
        gate.release.set()
        await asyncio.gather(pending, return_exceptions=True)
