"""The group coordinator's named deadlines are timers of the injected clock."""

from __future__ import annotations

from coordinator.group.timers import NamedTimers
from storage.clock import ManualClock


def timers_on_a_manual_clock() -> tuple[ManualClock, NamedTimers, list[str]]:
    """A clock, timers on it, and the list their actions append to."""
    clock = ManualClock()
    return clock, NamedTimers(clock), []


def test_a_timer_fires_once_its_delay_has_passed_on_the_clock() -> None:
    clock, timers, fired = timers_on_a_manual_clock()
    timers.schedule("a", 100, lambda: fired.append("a"))
    clock.advance(99)
    assert fired == []
    clock.advance(1)
    assert fired == ["a"]
    clock.advance(1000)
    assert fired == ["a"]


def test_a_new_timer_replaces_the_one_of_the_same_name() -> None:
    clock, timers, fired = timers_on_a_manual_clock()
    timers.schedule(("heartbeat", "g", "m"), 100, lambda: fired.append("first"))
    clock.advance(50)
    timers.schedule(("heartbeat", "g", "m"), 100, lambda: fired.append("second"))
    clock.advance(50)
    assert fired == []
    clock.advance(50)
    assert fired == ["second"]


def test_cancelled_timers_never_fire() -> None:
    clock, timers, fired = timers_on_a_manual_clock()
    for key in ("a", "b", "c"):
        timers.schedule(key, 10, lambda key=key: fired.append(key))
    timers.cancel("a")
    clock.advance(5)
    timers.cancel_all()
    clock.advance(100)
    assert fired == []
    # A name can be used again after its timer was cancelled.
    timers.schedule("a", 10, lambda: fired.append("again"))
    clock.advance(10)
    assert fired == ["again"]


def test_a_failing_timer_does_not_stop_the_others() -> None:
    clock, timers, fired = timers_on_a_manual_clock()

    def fail() -> None:
        raise RuntimeError("boom")

    timers.schedule("bad", 10, fail)
    timers.schedule("good", 10, lambda: fired.append("good"))
    clock.advance(10)
    assert fired == ["good"]
