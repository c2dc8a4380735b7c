"""Deadlines on the injected clock: the coordinator's `tick()` runs what is due, so tests
move a ManualClock and call it instead of sleeping; `drive` calls it in the broker."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
from collections.abc import Callable, Hashable

import structlog

from storage.clock import Clock

log = structlog.get_logger("odradek.groups")

# With nothing due, look again this often: ticks also run periodic work (offset expiry).
_IDLE_MS = 1000


class TimerQueue:
    def __init__(self) -> None:
        self._heap: list[tuple[int, int, Hashable]] = []
        self._live: dict[Hashable, tuple[int, int, Callable[[], None]]] = {}
        self._seq = itertools.count()

    def schedule(self, key: Hashable, deadline_ms: int, action: Callable[[], None]) -> None:
        """Set (or replace) the timer named `key`."""
        seq = next(self._seq)
        self._live[key] = (deadline_ms, seq, action)
        heapq.heappush(self._heap, (deadline_ms, seq, key))

    def cancel(self, key: Hashable) -> None:
        self._live.pop(key, None)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._live

    def deadline(self, key: Hashable) -> int | None:
        entry = self._live.get(key)
        return entry[0] if entry else None

    def next_deadline(self) -> int | None:
        while self._heap:
            deadline, seq, key = self._heap[0]
            live = self._live.get(key)
            if live is not None and live[1] == seq:
                return deadline
            heapq.heappop(self._heap)
        return None

    def pop_due(self, now_ms: int) -> list[Callable[[], None]]:
        due = []
        while self._heap and self._heap[0][0] <= now_ms:
            _, seq, key = heapq.heappop(self._heap)
            live = self._live.get(key)
            if live is not None and live[1] == seq:
                del self._live[key]
                due.append(live[2])
        return due


async def drive(tick: Callable[[], None], timers: TimerQueue, clock: Clock, wake: asyncio.Event) -> None:
    """Run `tick` whenever a timer of `timers` falls due on `clock`, until cancelled. The
    only place that waits on the event loop: the deadlines themselves are clock time, and a
    newly scheduled timer sets `wake` so the next deadline is recomputed."""
    while True:
        wake.clear()
        try:
            tick()
        except Exception:
            log.exception("group coordinator timer failed")
        deadline = timers.next_deadline()
        delay_ms = _IDLE_MS if deadline is None else max(0, min(deadline - clock.monotonic_ms(), _IDLE_MS))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), delay_ms / 1000)
