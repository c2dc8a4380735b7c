"""A future whose waiting task can resume in the same turn of the event loop.

An `asyncio.Future` hands its result to the tasks awaiting it on a later turn of the loop
(its done callbacks go through `call_soon`). Beside a producer of megabyte requests one turn
of the broker's loop can hold a megabyte append, and a small record's path crossed such a
turn at each hand-off: the fsync round that makes it durable ends (storage/flusher.py), the
parked Fetch that reads it resumes (storage/append_signal.py), the Produce that wrote it is
answered. `resume_now` runs the waiting task's next step at once instead, as Python 3.12's
eager tasks run a task's first step, when it is called outside any task (the round's end is
a callback of its own); inside a task, where asyncio lets no other task step, it schedules
as `set_result` does.

Only what asyncio.Task and asyncio.gather use of a future is implemented (`asyncio.isfuture`
holds): await it directly or gather it, nothing more.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Generator
from types import TracebackType
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_PENDING, _DONE, _CANCELLED = 0, 1, 2

Callback = Callable[["EagerFuture[Any]"], object]


class EagerFuture(Generic[T]):
    # Read by asyncio.Task on what a coroutine yields, and by asyncio.isfuture (on the class).
    _asyncio_future_blocking = False

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._state = _PENDING
        self._result: T | None = None
        self._exception: BaseException | None = None
        self._exception_tb: TracebackType | None = None
        self._callbacks: list[tuple[Callback, contextvars.Context]] = []
        self._cancel_message: object = None  # read by asyncio.gather, as its own futures'

    def get_loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    def done(self) -> bool:
        return self._state != _PENDING

    def cancelled(self) -> bool:
        return self._state == _CANCELLED

    def _make_cancelled_error(self) -> asyncio.CancelledError:  # asyncio.gather calls it
        return asyncio.CancelledError("" if self._cancel_message is None else self._cancel_message)

    def result(self) -> T:
        if self._state == _CANCELLED:
            raise self._make_cancelled_error()
        if self._state == _PENDING:
            raise asyncio.InvalidStateError("result is not set")
        if self._exception is not None:
            # As asyncio.Future: one exception may be set on many futures (a failed round's
            # callers); raised as set, it does not collect each earlier raiser's frames.
            raise self._exception.with_traceback(self._exception_tb)
        return self._result  # type: ignore[return-value]

    def exception(self) -> BaseException | None:
        if self._state == _CANCELLED:
            raise self._make_cancelled_error()
        if self._state == _PENDING:
            raise asyncio.InvalidStateError("exception is not set")
        return self._exception

    def add_done_callback(self, fn: Callback, *, context: contextvars.Context | None = None) -> None:
        ctx = context if context is not None else contextvars.copy_context()
        if self._state != _PENDING:
            self._loop.call_soon(fn, self, context=ctx)
        else:
            self._callbacks.append((fn, ctx))

    def remove_done_callback(self, fn: Callback) -> int:
        kept = [(f, ctx) for f, ctx in self._callbacks if f != fn]
        removed = len(self._callbacks) - len(kept)
        self._callbacks = kept
        return removed

    def cancel(self, msg: object = None) -> bool:
        if self._state != _PENDING:
            return False
        self._state = _CANCELLED
        self._cancel_message = msg
        self._schedule_callbacks()
        return True

    def set_result(self, result: T) -> None:
        """As `asyncio.Future.set_result`: the waiters resume on a later turn."""
        self._settle(result, None)
        self._schedule_callbacks()

    def set_exception(self, exception: BaseException) -> None:
        self._settle(None, exception)
        self._schedule_callbacks()

    def resume_now(self, result: T) -> None:
        """Set the result and, outside any task, run the waiters' next steps before
        returning (they may write to the loop's transports, never block)."""
        self._settle(result, None)
        if asyncio.current_task(self._loop) is not None:
            self._schedule_callbacks()
            return
        callbacks, self._callbacks = self._callbacks, []
        for fn, ctx in callbacks:
            try:
                ctx.run(fn, self)
            except (SystemExit, KeyboardInterrupt):
                raise
            except BaseException as exc:  # as asyncio.Handle reports a callback's failure
                self._loop.call_exception_handler(
                    {"message": f"Exception in callback {fn!r}", "exception": exc, "future": self}
                )

    def _settle(self, result: T | None, exception: BaseException | None) -> None:
        if self._state != _PENDING:
            raise asyncio.InvalidStateError("the future is already done")
        self._state = _DONE
        self._result = result
        self._exception = exception
        self._exception_tb = None if exception is None else exception.__traceback__

    def _schedule_callbacks(self) -> None:
        callbacks, self._callbacks = self._callbacks, []
        for fn, ctx in callbacks:
            self._loop.call_soon(fn, self, context=ctx)

    def __await__(self) -> Generator[Any, None, T]:
        if self._state == _PENDING:
            self._asyncio_future_blocking = True
            yield self
        if self._state == _PENDING:
            raise RuntimeError("await wasn't used with future")
        return self.result()

    __iter__ = __await__
