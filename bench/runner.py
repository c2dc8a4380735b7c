"""Runs workloads in a child process, so that a client stuck on a broker that stopped
answering (or a client crash) costs one cell, not the whole run."""

from __future__ import annotations

import contextlib
import multiprocessing
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from bench.clients import WorkloadError

_CTX = multiprocessing.get_context("spawn")


@dataclass
class Outcome:
    metrics: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0


def short_reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if not isinstance(exc, WorkloadError):
        text = f"{type(exc).__name__}: {text}"
    return text[:120]


def _serve(conn: Connection) -> None:
    from bench.pipeline_workloads import PIPELINE_WORKLOADS
    from bench.workloads import WORKLOADS

    workloads = {**WORKLOADS, **PIPELINE_WORKLOADS}

    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        name, params = request
        try:
            result: tuple[Any, ...] = ("ok", workloads[name](**params))
        except BaseException as exc:  # report anything, including KeyboardInterrupt in the child
            result = ("error", short_reason(exc), traceback.format_exc())
        conn.send(result)


class Worker:
    """One long-lived child process; replaced when a workload overruns its hard limit."""

    def __init__(self) -> None:
        self._proc: Any = None
        self._conn: Connection | None = None

    def _ensure(self) -> Connection:
        if self._proc is None or not self._proc.is_alive() or self._conn is None:
            parent, child = _CTX.Pipe()
            self._proc = _CTX.Process(target=_serve, args=(child,), daemon=True, name="bench-worker")
            self._proc.start()
            child.close()
            self._conn = parent
        return self._conn

    def run(
        self,
        name: str,
        params: dict[str, Any],
        hard_limit: float,
        tick: Callable[[], None] | None = None,
    ) -> Outcome:
        conn = self._ensure()
        start = time.monotonic()
        conn.send((name, params))
        while True:
            if conn.poll(0.05):
                try:
                    reply = conn.recv()
                except EOFError:
                    self.close()
                    return Outcome(error="client process died", seconds=time.monotonic() - start)
                seconds = time.monotonic() - start
                if reply[0] == "ok":
                    return Outcome(metrics=reply[1], seconds=seconds)
                return Outcome(error=reply[1], seconds=seconds)
            if tick is not None:
                tick()
            if not self._proc.is_alive():
                self.close()
                return Outcome(error="client process died", seconds=time.monotonic() - start)
            if time.monotonic() - start > hard_limit:
                self.close()
                return Outcome(error=f"hung: no result in {hard_limit:.0f}s", seconds=hard_limit)

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.send(None)
            self._conn.close()
            self._conn = None
        if self._proc is not None:
            self._proc.join(2)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join(5)
            self._proc = None
