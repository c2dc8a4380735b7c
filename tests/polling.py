"""Waiting for an observable state instead of sleeping a fixed time: a fixed sleep is too
short on a loaded machine (a racy test fails CI) and too long everywhere else."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


def wait_until(predicate: Callable[[], object], timeout: float = 15.0, what: str = "condition",
               interval: float = 0.05) -> None:
    """Polls `predicate` until it holds; fails the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(interval)


async def async_wait_until(predicate: Callable[[], object], timeout: float = 15.0, what: str = "condition",
                           interval: float = 0.05) -> None:
    """`wait_until` for a test on the event loop: the loop keeps running between polls."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(interval)
