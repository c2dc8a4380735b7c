"""Injected time source: storage and the coordinators never read the system clock directly,
so rolling, retention, timeouts and waits can be tested without sleeping.

Timers run on the clock too: `call_later` and `sleep` are measured on the event loop for the
`SystemClock`, and fire only when a `ManualClock` is advanced past their deadline."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None:
        """Stop the timer; nothing happens if it already fired."""
        ...


class Clock(Protocol):
    def now_ms(self) -> int:
        """Wall-clock milliseconds since the epoch (record timestamps, retention)."""
        ...

    def monotonic_ms(self) -> int:
        """Monotonic milliseconds (durations only)."""
        ...

    def call_later(self, delay_ms: int, callback: Callable[[], None]) -> Timer:
        """Run `callback` once `delay_ms` of this clock's time have passed (loop thread)."""
        ...

    async def sleep(self, delay_ms: int) -> None:
        """Wait `delay_ms` of this clock's time."""
        ...


class SystemClock:
    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def monotonic_ms(self) -> int:
        return time.monotonic_ns() // 1_000_000

    def call_later(self, delay_ms: int, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(max(delay_ms, 0) / 1000, callback)

    async def sleep(self, delay_ms: int) -> None:
        await asyncio.sleep(max(delay_ms, 0) / 1000)


class ManualTimer:
    __slots__ = ("callback", "cancelled", "deadline_ms")

    def __init__(self, deadline_ms: int, callback: Callable[[], None]) -> None:
        self.deadline_ms = deadline_ms
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that only moves when told to; its timers fire inside `advance`."""

    def __init__(self, now_ms: int = 1_700_000_000_000) -> None:
        self._now = now_ms
        self._mono = 0
        self._timers: list[tuple[int, int, ManualTimer]] = []
        self._seq = itertools.count()

    def now_ms(self) -> int:
        return self._now

    def monotonic_ms(self) -> int:
        return self._mono

    def advance(self, ms: int) -> None:
        """Move both clocks forward and fire, in deadline order, every timer now due."""
        self._now += ms
        self._mono += ms
        while self._timers and self._timers[0][0] <= self._mono:
            _, _, timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                timer.cancelled = True
                timer.callback()

    def call_later(self, delay_ms: int, callback: Callable[[], None]) -> Timer:
        timer = ManualTimer(self._mono + max(delay_ms, 0), callback)
        heapq.heappush(self._timers, (timer.deadline_ms, next(self._seq), timer))
        return timer

    async def sleep(self, delay_ms: int) -> None:
        if delay_ms <= 0:
            # As asyncio.sleep(0): let the other tasks run, without waiting for the clock.
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        timer = self.call_later(delay_ms, lambda: _resolve(future))
        try:
            await future
        finally:
            timer.cancel()

    def next_deadline_ms(self) -> int | None:
        """How far the clock must move for the next timer to fire (None: no timer)."""
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        return max(self._timers[0][0] - self._mono, 0) if self._timers else None


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
