"""fdatasync with no thread of ours: Linux native AIO.

A round of the file engine (storage.flusher) used to hand its fdatasync calls to an fsync
thread and take the result back: two handoffs, each through the GIL and a thread wake-up,
which on a busy 2-core machine cost a small acks=all record more than the fdatasync
itself (bench/README.md, "What bounds the latency beside load"). Here the event loop
submits an IOCB_CMD_FDSYNC per file (io_submit; the kernel runs it on a worker of its
own) and reads the completions from the eventfd it watches: the round ends on the loop
in the same turn that learns of it, and no Python thread runs.

caio's `linux_aio` (used by aiofile) wraps io_setup/io_submit/io_getevents and the
eventfd; its `AsyncioContext` is not used, as it makes a task and a future per operation
where a round needs one callback. Where Linux AIO is missing (another OS, a kernel before
4.18, io_setup refused) `AioDatasync.open` returns None and rounds stay on the threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import time
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from caio.linux_aio import Context

linux_aio: ModuleType | None
try:
    from caio import linux_aio
except ImportError:  # not Linux, or a kernel without AIO fsync
    linux_aio = None
linux_uring: ModuleType | None
try:
    from caio import linux_uring
except ImportError:  # not Linux, or a kernel without io_uring
    linux_uring = None


class AioSyncable(Protocol):
    """A target a round may fdatasync itself (storage.files.FileStore)."""

    def begin_datasync(self) -> tuple[int, int] | None:
        """(descriptor, size) to fdatasync now instead of calling sync(); None: call sync()."""
        ...

    def datasync_done(self, size: int, error: OSError | None) -> OSError | None:
        """The fdatasync begun at `size` ended (error: how it failed); returns the error the
        round must report, if any."""
        ...


# Told on the event loop that every file of a round is synced: the round's error and the
# seconds from the submission to the last completion read.
Finished = Callable[[BaseException | None, float], None]
# Runs targets' sync() on a thread and calls back from that thread (storage.flusher._SyncPool.submit).
OnThreads = Callable[[list[object], Finished], None]

# In flight at once (io_setup's nr): a round past it goes to the threads.
MAX_IN_FLIGHT = 1024


class AioDatasync:
    """One AIO context of an event loop, its eventfd watched by the loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, module: ModuleType, context: Context) -> None:
        self._loop = loop
        self._module = module
        self._context = context
        # io_uring takes submissions into its ring and needs them flushed (io_uring_enter).
        self._uring = module is linux_uring
        self._in_flight = 0
        # Completions read by `process_events`, handled once it has returned: a round's end
        # may start the lane's next round, whose submission must not run inside it.
        self._completed: list[tuple[Callable[[int], None], int]] = []
        loop.add_reader(self._fileno, self._on_ready)

    @classmethod
    def open(cls, loop: asyncio.AbstractEventLoop, kind: str = "aio") -> AioDatasync | None:
        """A context of `kind` (`aio`: Linux AIO, `io_uring`) on `loop`, or None where it
        cannot be had."""
        module = linux_uring if kind == "io_uring" else linux_aio
        if module is None:
            return None
        try:
            context = module.Context(MAX_IN_FLIGHT)
        except (OSError, SystemError, RuntimeError):  # io_setup refused (aio-max-nr reached)
            return None
        return cls(loop, module, context)

    @property
    def _fileno(self) -> int:
        return self._context.fileno

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    def close(self) -> None:
        """Stop watching; operations in flight still complete (io_destroy waits for them)."""
        self._loop.remove_reader(self._fileno)

    def _on_ready(self) -> None:
        context = self._context
        with contextlib.suppress(BlockingIOError):  # completions already read: drain anyway
            context.poll()
        while context.process_events():
            pass
        completed = self._completed[:]  # the list the operations' callbacks append to stays
        self._completed.clear()
        for done, result in completed:
            done(result)

    def _flush(self) -> None:
        """Hand io_uring's queued submissions to the kernel (again shortly, should it fail)."""
        try:
            self._context.flush()  # type: ignore[attr-defined]
        except (OSError, SystemError, RuntimeError):  # the ring busy: they stay queued
            self._loop.call_later(0.001, self._flush)
            return
        # What completed within the flush is in the ring, not told by the eventfd.
        self._loop.call_soon(self._on_ready)

    def run_round(self, targets: list[object], finished: Finished, on_threads: OnThreads) -> bool:
        """Make `targets` durable: the ones that say how (`begin_datasync`) by AIO, the others
        by their sync() on a thread; `finished` is called on the loop once all are done,
        with the first error. False: nothing was submitted (no target could take AIO, or
        the kernel refused them), and the caller runs the round as before."""
        direct: list[tuple[AioSyncable, int, int]] = []
        rest: list[object] = []
        for target in targets:
            begin = getattr(target, "begin_datasync", None)
            plan = begin() if begin is not None else None
            if plan is None:
                rest.append(target)
            else:
                direct.append((target, plan[0], plan[1]))  # type: ignore[arg-type]
        if not direct or self._in_flight + len(direct) > MAX_IN_FLIGHT:
            return False
        module = self._module
        started = time.perf_counter()
        errors: list[BaseException] = []
        # The AIO operations accepted, plus one for the threads' part if any.
        pending = 0

        def part_done(error: BaseException | None) -> None:
            nonlocal pending
            if error is not None:
                errors.append(error)
            pending -= 1
            if pending == 0:
                finished(errors[0] if errors else None, time.perf_counter() - started)

        def completion(target: AioSyncable, size: int) -> Callable[[int], None]:
            def done(result: int) -> None:
                self._in_flight -= 1
                if result >= 1 << 63:
                    # caio's linux_aio hands the io_event's res over as unsigned: -EIO comes
                    # as 2**64 - 5, and read as a success it would acknowledge what no
                    # fdatasync made durable (the fault campaign's io-error found it).
                    result -= 1 << 64
                error = OSError(-result, os.strerror(-result)) if result < 0 else None
                part_done(target.datasync_done(size, error))
            return done

        ops = []
        completed = self._completed
        for target, fd, size in direct:
            op = module.Operation.fdsync(fd)
            op.set_callback(functools.partial(_defer, completed, completion(target, size)))
            ops.append(op)
        try:
            accepted = self._context.submit(*ops)
        except (OSError, ValueError, SystemError, RuntimeError):
            # Nothing reached the kernel (a filesystem without fsync for AIO says EINVAL).
            accepted = 0
        if accepted == 0:
            return False
        self._in_flight += accepted
        if self._uring:
            self._flush()
        pending = accepted
        # The ones the kernel did not take: their sync() does the same fdatasync.
        rest.extend(target for target, _fd, _size in direct[accepted:])
        if rest:
            pending += 1
            call_soon_threadsafe = self._loop.call_soon_threadsafe

            def threads_done(error: BaseException | None, _seconds: float) -> None:
                call_soon_threadsafe(part_done, error)

            on_threads(rest, threads_done)
        return True


def _defer(completed: list[tuple[Callable[[int], None], int]], done: Callable[[int], None], result: int) -> None:
    completed.append((done, result))
