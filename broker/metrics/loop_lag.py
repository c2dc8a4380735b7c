"""Event loop lag: how late a timer fires. A callback ready to run (a Produce's answer after
its fsync round, a parked Fetch woken by new records) waits as long for the loop, so a lag
that grows under load shows time taken on the loop itself (a long handler, a blocking
call) rather than in the disk."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

LAG_SAMPLE_SECONDS = 0.05


async def watch_loop_lag(observe: Callable[[float], None], every: float = LAG_SAMPLE_SECONDS) -> None:
    """Runs until cancelled: sleeps `every` seconds and reports how much longer it took."""
    while True:
        asked = time.perf_counter()
        await asyncio.sleep(every)
        observe(max(0.0, time.perf_counter() - asked - every))
