"""The clock's timers: a ManualClock fires them only when advanced past their deadline, in
deadline order; the SystemClock runs them on the event loop."""

from __future__ import annotations

import asyncio

from storage.clock import ManualClock, SystemClock


def test_manual_timers_fire_on_advance_in_deadline_order() -> None:
    clock = ManualClock()
    fired: list[str] = []
    clock.call_later(30, lambda: fired.append("b"))
    clock.call_later(10, lambda: fired.append("a"))
    cancelled = clock.call_later(20, lambda: fired.append("never"))
    cancelled.cancel()
    assert clock.next_deadline_ms() == 10
    clock.advance(9)
    assert fired == []
    assert clock.next_deadline_ms() == 1
    clock.advance(1)
    assert fired == ["a"]
    clock.advance(100)
    assert fired == ["a", "b"]
    assert clock.next_deadline_ms() is None


async def test_manual_sleep_returns_only_after_advance() -> None:
    clock = ManualClock()
    task = asyncio.create_task(clock.sleep(50))
    await asyncio.sleep(0)
    clock.advance(49)
    await asyncio.sleep(0)
    assert not task.done()
    clock.advance(1)
    await asyncio.sleep(0)
    assert task.done()
    # A cancelled sleep leaves no timer behind.
    other = asyncio.create_task(clock.sleep(50))
    await asyncio.sleep(0)
    other.cancel()
    await asyncio.gather(other, return_exceptions=True)
    assert clock.next_deadline_ms() is None


async def test_system_clock_timer_and_sleep_run_on_the_loop() -> None:
    clock = SystemClock()
    done = asyncio.Event()
    clock.call_later(0, done.set)
    await asyncio.wait_for(done.wait(), 5)
    late = clock.call_later(60_000, done.clear)
    late.cancel()
    await clock.sleep(0)
    assert done.is_set()
