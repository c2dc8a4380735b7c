"""The time a handler spends running, without the time it waits: Kafka's request quota
counts a request thread's time (`requestThreadTimeNanos`), never the time a request spends
parked (a long-poll fetch, an fsync round)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Generator
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class BusyTime(Generic[T]):
    """Runs a coroutine, adding up the time of each of its steps."""

    __slots__ = ("awaitable", "nanos")

    def __init__(self, awaitable: Awaitable[T]) -> None:
        self.awaitable = awaitable
        self.nanos = 0

    def __await__(self) -> Generator[Any, Any, T]:
        coro = self.awaitable.__await__()
        sent: Any = None
        thrown: BaseException | None = None
        while True:
            started = time.perf_counter_ns()
            try:
                yielded = coro.send(sent) if thrown is None else coro.throw(thrown)
            except StopIteration as stop:
                result: T = stop.value
                return result
            finally:
                self.nanos += time.perf_counter_ns() - started
            try:
                sent = yield yielded
                thrown = None
            except BaseException as exc:  # cancellation included: handed to the coroutine
                sent = None
                thrown = exc
