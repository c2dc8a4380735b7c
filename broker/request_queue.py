"""Kafka's `queued.max.requests` (its RequestChannel): a broker-wide bound on requests read
from the network but not yet handled. A request counts from the moment its frame is read
until its handler has answered; at the bound every connection stops reading, as Kafka's
network threads block on the full queue, and they read again once it drops below."""

from __future__ import annotations

from collections.abc import Callable


class RequestQueue:
    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self.size = 0
        # Told whenever the queue becomes full or stops being full.
        self._listeners: set[Callable[[], None]] = set()

    @property
    def full(self) -> bool:
        return self.size >= self.capacity

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.add(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.discard(listener)

    def add(self, count: int = 1) -> None:
        """`count` requests were read."""
        was_full = self.full
        self.size += count
        if self.full != was_full:
            self._notify()

    def done(self, count: int = 1) -> None:
        """`count` requests were handled (or dropped with their connection)."""
        was_full = self.full
        self.size = max(0, self.size - count)
        if self.full != was_full:
            self._notify()

    def _notify(self) -> None:
        for listener in list(self._listeners):
            listener()
