"""The group coordinator's deadlines (join, sync, heartbeats), named so that a new one
replaces the old: each is a timer of the injected clock (`storage/clock.py`), so tests
move a ManualClock instead of sleeping."""

from __future__ import annotations

from collections.abc import Callable, Hashable

import structlog

from storage.clock import Clock, Timer

log = structlog.get_logger("odradek.groups")


class NamedTimers:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._live: dict[Hashable, Timer] = {}

    def schedule(self, key: Hashable, delay_ms: int, action: Callable[[], None]) -> None:
        """Set (or replace) the timer named `key`."""
        self.cancel(key)
        timer: Timer | None = None

        def fire() -> None:
            if self._live.get(key) is timer:
                del self._live[key]
            try:
                action()
            except Exception:
                log.exception("group coordinator timer failed", timer=key)

        timer = self._clock.call_later(delay_ms, fire)
        self._live[key] = timer

    def active(self, key: Hashable) -> bool:
        return key in self._live

    def cancel(self, key: Hashable) -> None:
        timer = self._live.pop(key, None)
        if timer is not None:
            timer.cancel()

    def cancel_all(self) -> None:
        for key in list(self._live):
            self.cancel(key)
