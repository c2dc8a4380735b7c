"""EagerFuture (storage/eager_future.py): a task awaiting it resumes inside `resume_now` when
that is called outside any task, and as after an asyncio.Future otherwise; cancellation,
exceptions and gather behave as asyncio's. Run on asyncio's loop and on uvloop, the broker's."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import uvloop

from storage.eager_future import EagerFuture
from storage.flusher import GroupCommitFlusher

LOOPS = {"asyncio": asyncio.new_event_loop, "uvloop": uvloop.new_event_loop}


@pytest.fixture(params=sorted(LOOPS))
def run(request: pytest.FixtureRequest) -> Callable[[Callable[[], Awaitable[Any]]], Any]:
    def run_on_loop(main: Callable[[], Awaitable[Any]]) -> Any:
        with asyncio.Runner(loop_factory=LOOPS[request.param]) as runner:
            return runner.run(main())  # type: ignore[arg-type]

    return run_on_loop


async def _parked() -> tuple[EagerFuture[int], list[str], asyncio.Task[None]]:
    """A future, the steps taken, and a task now waiting on the future that notes its result."""
    loop = asyncio.get_running_loop()
    future: EagerFuture[int] = EagerFuture(loop)
    steps: list[str] = []

    async def waiter() -> None:
        steps.append(f"resumed with {await future}")

    task = loop.create_task(waiter())
    await asyncio.sleep(0)
    return future, steps, task


def test_a_waiter_resumes_inside_resume_now_called_from_a_callback(run: Any) -> None:
    async def main() -> list[str]:
        future, steps, task = await _parked()

        done = asyncio.get_running_loop().create_future()

        def callback() -> None:
            future.resume_now(7)
            steps.append("resume_now returned")
            done.set_result(None)

        asyncio.get_running_loop().call_soon(callback)
        await done
        await task
        return steps

    assert run(main) == ["resumed with 7", "resume_now returned"]


def test_inside_a_task_resume_now_schedules_as_set_result(run: Any) -> None:
    async def main() -> list[str]:
        future, steps, task = await _parked()
        future.resume_now(3)  # this test's own task is running
        steps.append("resume_now returned")
        await task
        return steps

    assert run(main) == ["resume_now returned", "resumed with 3"]


def test_cancelling_the_waiting_task_cancels_the_future(run: Any) -> None:
    async def main() -> tuple[bool, bool]:
        loop = asyncio.get_running_loop()
        future: EagerFuture[None] = EagerFuture(loop)
        task = loop.create_task(_await(future))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return future.cancelled(), future.done()

    assert run(main) == (True, True)


def test_an_exception_reaches_the_waiter_and_gather_collects_results(run: Any) -> None:
    async def main() -> list[object]:
        loop = asyncio.get_running_loop()
        failing: EagerFuture[None] = EagerFuture(loop)
        task = loop.create_task(_await(failing))
        await asyncio.sleep(0)
        failing.set_exception(OSError("disk"))
        with pytest.raises(OSError, match="disk"):
            await task
        a: EagerFuture[int] = EagerFuture(loop)
        b: EagerFuture[int] = EagerFuture(loop)
        gathered = asyncio.gather(a, b)
        loop.call_soon(a.resume_now, 1)
        loop.call_soon(b.set_result, 2)
        return list(await gathered)

    assert run(main) == [1, 2]


def test_a_sync_waiter_resumes_in_the_round_end_after_the_round_made_writes_visible(run: Any) -> None:
    """GroupCommitFlusher: the round's after_round callbacks (a log's high watermark) run
    before a sync() caller resumes, and the caller resumes within the round's end."""

    class File:
        def sync(self) -> None:
            pass

    async def main() -> list[str]:
        flusher = GroupCommitFlusher()
        steps: list[str] = []
        flusher.mark_dirty(File())

        async def writer() -> None:
            await flusher.sync()
            steps.append("sync returned")

        task = asyncio.get_running_loop().create_task(writer())
        await asyncio.sleep(0)
        round_ = flusher.request_round()
        assert round_ is not None
        flusher.after_round(round_, lambda: steps.append("visible"))
        await task
        await flusher.close()
        return steps

    assert run(main) == ["visible", "sync returned"]


def test_cancelling_a_task_awaiting_a_gather_of_them_cancels_each(run: Any) -> None:
    """PartitionedFlusher.sync gathers the lanes' futures; its caller may be cancelled."""

    async def main() -> tuple[bool, bool]:
        loop = asyncio.get_running_loop()
        a: EagerFuture[None] = EagerFuture(loop)
        b: EagerFuture[None] = EagerFuture(loop)
        task = loop.create_task(_await_gathered(a, b))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 5)
        return a.cancelled(), b.cancelled()

    assert run(main) == (True, True)


async def _await_gathered(*futures: EagerFuture[Any]) -> Any:
    return await asyncio.gather(*futures)


async def _await(future: EagerFuture[Any]) -> Any:
    return await future
