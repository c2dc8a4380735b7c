"""What a round's end (storage/flusher.py `_finish_round`) and a parked fetch's wake-up
(storage/append_signal.py `notify(now=True)`) survive now that they resume their waiters'
tasks inside themselves (storage/eager_future.py): many waiters at once, waiters that cancel
or re-park one another, a waiter that asks for the next round, a failing callback."""

from __future__ import annotations

import asyncio
import traceback
from pathlib import Path
from typing import Any

import pytest
import uvloop

from protocol import record_batch as rb
from storage.append_signal import AppendSignal
from storage.engine import READ_COMMITTED, AppendOrigin
from storage.errors import KafkaStorageError
from storage.flusher import GroupCommitFlusher
from tests.polling import async_wait_until
from tests.unit.storage.storage_helpers import Harness, make_batch

LOOPS = {"asyncio": asyncio.new_event_loop, "uvloop": uvloop.new_event_loop}


class File:
    def __init__(self) -> None:
        self.calls = 0

    def sync(self) -> None:
        self.calls += 1


def _run(loop_name: str, main: Any) -> Any:
    with asyncio.Runner(loop_factory=LOOPS[loop_name]) as runner:
        return runner.run(main())


async def _notify_from_a_callback(signal: AppendSignal, then: Any) -> Any:
    """notify(now=True) as a round's end calls it, outside any task; `then()` right after."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()

    def callback() -> None:
        signal.notify("t", 0, now=True)
        done.set_result(then())

    loop.call_soon(callback)
    return await done


async def _turns_until(condition: Any) -> None:
    for _ in range(10_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition never held")


@pytest.mark.parametrize("loop_name", sorted(LOOPS))
def test_thousands_of_parked_waiters_resume_in_one_notify_without_recursion(loop_name: str) -> None:
    async def main() -> tuple[int, int, int]:
        loop = asyncio.get_running_loop()
        signal = AppendSignal()
        woken: list[int] = []

        async def fetch(i: int) -> None:
            # Parked on two partitions, as a fetch of several; re-parks once when woken.
            assert await signal.wait([("t", 0), ("t", i % 7 + 1)], 30)
            woken.append(i)
            await signal.wait([("t", 0)], 30)

        n = 5000
        tasks = [loop.create_task(fetch(i)) for i in range(n)]
        await _turns_until(lambda: signal.waiting("t", 0) == n)
        resumed_inside = await _notify_from_a_callback(signal, lambda: len(woken))
        # Every waiter re-parked on ("t", 0) with a fresh future, none left on the others.
        reparked = signal.waiting("t", 0)
        leftover = sum(signal.waiting("t", p) for p in range(1, 8))
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert signal.waiting("t", 0) == 0
        return resumed_inside, reparked, leftover

    assert _run(loop_name, main) == (5000, 5000, 0)


@pytest.mark.parametrize("loop_name", sorted(LOOPS))
def test_a_waiter_resumed_by_notify_cancels_the_others_it_would_wake(loop_name: str) -> None:
    """A fetch's answer can close its connection, cancelling the connection's other parked
    fetches, which the same notify has yet to wake."""

    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        signal = AppendSignal()
        outcomes: list[str] = []
        tasks: list[asyncio.Task[None]] = []

        async def fetch(i: int) -> None:
            try:
                await signal.wait([("t", 0)], 30)
            except asyncio.CancelledError:
                outcomes.append(f"{i} cancelled")
                raise
            outcomes.append(f"{i} woken")
            for other in tasks:
                if other is not asyncio.current_task():
                    other.cancel()

        tasks.extend(loop.create_task(fetch(i)) for i in range(3))
        await _turns_until(lambda: signal.waiting("t", 0) == 3)
        errors: list[dict[str, Any]] = []
        loop.set_exception_handler(lambda _loop, context: errors.append(context))
        await _notify_from_a_callback(signal, lambda: None)
        await asyncio.gather(*tasks, return_exceptions=True)
        assert errors == []
        return sorted(o.split()[1] for o in outcomes)

    assert _run(loop_name, main) == ["cancelled", "cancelled", "woken"]


@pytest.mark.parametrize("loop_name", sorted(LOOPS))
def test_a_writer_resumed_by_the_round_end_writes_again_and_waits_for_the_next_round(loop_name: str) -> None:
    async def main() -> tuple[int, int, bool]:
        loop = asyncio.get_running_loop()
        flusher = GroupCommitFlusher()
        files = [File() for _ in range(50)]
        steps: list[int] = []

        async def writer(i: int) -> None:
            flusher.mark_dirty(files[i])
            await flusher.sync()
            flusher.mark_dirty(files[i])  # written again inside the round's end
            await flusher.sync()
            steps.append(i)

        tasks = [loop.create_task(writer(i)) for i in range(50)]
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
        idle = flusher._running is None and flusher._next is None and not flusher._resumers and not flusher._after
        await flusher.close()
        return len(steps), sum(f.calls for f in files), idle

    steps, calls, idle = _run(loop_name, main)
    assert (steps, calls, idle) == (50, 100, True)


@pytest.mark.parametrize("loop_name", sorted(LOOPS))
def test_a_failing_after_round_callback_does_not_strand_the_rounds_sync_callers(loop_name: str) -> None:
    """Before the round's waiters were resumed last, they were resumed before the callbacks;
    a callback that raises (a bug elsewhere, reported by the loop) must not leave them
    waiting for ever, their requests never answered."""

    async def main() -> tuple[bool, int]:
        loop = asyncio.get_running_loop()
        errors: list[dict[str, Any]] = []
        loop.set_exception_handler(lambda _loop, context: errors.append(context))
        flusher = GroupCommitFlusher()
        flusher.mark_dirty(File())
        task = loop.create_task(flusher.sync())
        await asyncio.sleep(0)
        round_ = flusher.request_round()
        assert round_ is not None

        def broken() -> None:
            raise ValueError("a bug in a callback")

        flusher.after_round(round_, broken)
        await _turns_until(lambda: flusher.rounds == 1)
        await _turns_until(lambda: task.done() or len(errors) > 0)
        for _ in range(3):
            await asyncio.sleep(0)
        resumed = task.done()
        if not resumed:
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await flusher.close()
        return resumed, len(errors)

    assert _run(loop_name, main) == (True, 1)


async def test_a_fetch_woken_inside_a_round_end_sees_the_decision_and_writes_durably(tmp_path: Path) -> None:
    """FileStorage: the round's end moves the high watermark and the last stable offset, then
    wakes the parked read inside itself; that read may write durably at once (its own round
    on another lane, and one covering every lane) and its own log's writes are visible."""
    harness = Harness("file", tmp_path / "data")
    storage = await harness.open()
    try:
        await storage.create_topic("t", 2)
        log0, log1 = storage.log("t", 0), storage.log("t", 1)
        seen_by_fetch: list[tuple[int, int]] = []

        async def fetch() -> int:
            since = storage.appended.changes
            assert await storage.appended.wait([("t", 0)], 30, since=since)
            seen_by_fetch.append((log0.high_watermark, log0.last_fetchable_offset(READ_COMMITTED)))
            await log1.append(make_batch(1), durable=True)
            await log0.sync()
            return log1.high_watermark

        parked = asyncio.get_running_loop().create_task(fetch())
        await async_wait_until(lambda: storage.appended.waiting("t", 0) == 1)
        await log0.append(make_batch(2, producer_id=7, producer_epoch=0, base_sequence=0, transactional=True))
        await log0.append(
            rb.build_control_batch(rb.ControlType.COMMIT, producer_id=7, producer_epoch=0, coordinator_epoch=0,
                                   timestamp=1_700_000_000_000),
            origin=AppendOrigin.COORDINATOR,
        )
        await log0.sync()
        assert await asyncio.wait_for(parked, 30) == 1
        # Woken by the round that made the first batch visible, or by the one after it.
        assert seen_by_fetch[0] in [(2, 0), (3, 3)]
        assert (log0.high_watermark, log0.last_fetchable_offset(READ_COMMITTED)) == (3, 3)
    finally:
        await harness.close()


class Failing:
    def sync(self) -> None:
        raise OSError("the disk is gone")


async def test_the_failure_shared_by_a_failed_rounds_callers_does_not_pile_up_their_tracebacks() -> None:
    """One KafkaStorageError is handed to every sync() caller of a failed round. Raised from
    each caller's future as asyncio.Future raises it (the traceback it had when set), it
    does not collect every earlier caller's frames (and the requests they hold) as well."""
    flusher = GroupCommitFlusher()
    flusher.mark_dirty(Failing())
    depths: list[int] = []

    async def caller() -> KafkaStorageError:
        try:
            await flusher.sync()
        except KafkaStorageError as exc:
            depths.append(len(traceback.extract_tb(exc.__traceback__)))
            return exc
        raise AssertionError("the round did not fail")

    failures = await asyncio.gather(*(caller() for _ in range(5)))
    assert len({id(f) for f in failures}) == 1
    assert len(set(depths)) == 1, depths
    await flusher.close()


@pytest.mark.parametrize("loop_name", sorted(LOOPS))
def test_a_waiter_failing_in_its_resumed_step_fails_its_own_task_only(loop_name: str) -> None:
    async def main() -> tuple[list[str], int, bool]:
        loop = asyncio.get_running_loop()
        signal = AppendSignal()
        outcomes: list[str] = []

        async def fetch(i: int) -> None:
            await signal.wait([("t", 0)], 30)
            if i == 0:
                raise ValueError("a handler bug")
            outcomes.append(f"{i} woken")

        tasks = [loop.create_task(fetch(i)) for i in range(3)]
        await _turns_until(lambda: signal.waiting("t", 0) == 3)
        errors: list[dict[str, Any]] = []
        loop.set_exception_handler(lambda _loop, context: errors.append(context))
        done_inside = await _notify_from_a_callback(signal, lambda: all(t.done() for t in tasks))
        results = await asyncio.gather(*tasks, return_exceptions=True)
        return sorted(outcomes), len(errors), done_inside and isinstance(results[0], ValueError)

    assert _run(loop_name, main) == (["1 woken", "2 woken"], 0, True)
