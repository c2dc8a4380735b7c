"""Where a broker's event loop spends its CPU while 2 share consumers read: a broker of this
checkout with its loop thread's CPU (`time.thread_time`) attributed to what ran, then share
runs of the bench's share-group-2 row (`bench/workloads.py` `_share_group_rate`: 100,000
records of 100 B in batches of 16 KiB, 2 member processes) against it.

    PYTHONPATH=. python -m bench.share_fetch_cpu [--runs 6]

Printed for the share runs together (the prefill left out), per ShareFetch: the loop
thread's CPU (from /proc) and its parts:

- `request ShareFetch`: the request's task (the handler's own work, its acquisition, the
  answer's encoding and, when nothing else is pending on the connection, its send), and the
  parts of it named `  acquisition`, `  log read`, `  answer encoding`, `  answer send`;
- `acknowledgement`: the acknowledgements' tasks (the state change, its `ShareUpdate`
  append, what runs after the flusher's round);
- `reads and parsing`: `data_received` (the frames, the request's parse, its dispatch);
- `flusher rounds`: the flusher's round callbacks on the loop;
- `other requests` and the rest (uvloop, timers, futures' callbacks).

And the answer send's wall time (p50, p90): the send wakes the member, which the kernel
may run on the broker's core in its place (a socket's wake-up is a synchronous one).

The attribution wraps functions of the broker (`--serve`, the broker's process), a
measure's own cost included (a few microseconds per wrapped call)."""

from __future__ import annotations

import argparse
import collections
import collections.abc
import os
import runpy
import signal
import statistics
import sys
import threading
import time
from collections.abc import Callable, Generator
from typing import Any

SHARE_FETCH = 78
RECORDS = 100_000


class _Account:
    def __init__(self) -> None:
        self.cpu: collections.defaultdict[str, float] = collections.defaultdict(float)
        self.calls: collections.Counter[str] = collections.Counter()
        self.send_wall: list[float] = []
        self.depth = 0


ACCOUNT = _Account()


class _Timed(collections.abc.Coroutine[Any, Any, Any]):
    """A coroutine whose steps' CPU is counted under `key`: outermost only (a task), or
    every step (`inclusive`, a part of a task)."""

    def __init__(self, coro: collections.abc.Coroutine[Any, Any, Any], key: str, inclusive: bool) -> None:
        self._coro, self._key, self._inclusive = coro, key, inclusive

    def __await__(self) -> Generator[Any, None, Any]:
        return self

    def __iter__(self) -> _Timed:
        return self

    def __next__(self) -> Any:
        return self.send(None)

    def _step(self, f: Callable[..., Any], *args: Any) -> Any:
        outer = ACCOUNT.depth == 0
        ACCOUNT.depth += 1
        t = time.thread_time()
        try:
            return f(*args)
        finally:
            ACCOUNT.depth -= 1
            if outer or self._inclusive:
                ACCOUNT.cpu[self._key] += time.thread_time() - t

    def send(self, value: Any) -> Any:
        return self._step(self._coro.send, value)

    def throw(self, *args: Any) -> Any:
        return self._step(self._coro.throw, *args)

    def close(self) -> None:
        self._coro.close()


def _wrap_coroutine(owner: Any, name: str, key: str, inclusive: bool) -> None:
    original = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> _Timed:
        return _Timed(original(*args, **kwargs), key, inclusive)

    setattr(owner, name, wrapper)


def _wrap_call(owner: Any, name: str, key: str, inclusive: bool, wall: list[float] | None = None) -> None:
    original = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        outer = ACCOUNT.depth == 0
        ACCOUNT.depth += 1
        t, w = time.thread_time(), time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            ACCOUNT.depth -= 1
            if outer or inclusive:
                ACCOUNT.cpu[key] += time.thread_time() - t
            if wall is not None:
                wall.append(time.perf_counter() - w)

    setattr(owner, name, wrapper)


def _instrument() -> None:
    import broker.connection as connection
    import broker.handlers.share_fetch as share_fetch
    import coordinator.share.coordinator as share_coordinator
    import storage.flusher as flusher
    from broker.dataplane.replica_manager import ReplicaManager

    run = connection.KafkaConnection._run

    def timed_run(self: Any, slot: Any, ctx: Any, request: Any, arrived: float) -> _Timed:
        key = "request ShareFetch" if ctx.api_key == SHARE_FETCH else "other requests"
        ACCOUNT.calls[key] += 1
        return _Timed(run(self, slot, ctx, request, arrived), key, False)

    connection.KafkaConnection._run = timed_run  # type: ignore[method-assign]
    _wrap_coroutine(share_coordinator.ShareCoordinator, "acknowledge", "acknowledgement", False)
    _wrap_call(connection.KafkaConnection, "data_received", "reads and parsing", False)
    _wrap_call(connection.KafkaConnection, "_flush", "flushes", False)
    _wrap_call(flusher.GroupCommitFlusher, "_finish_round", "flusher rounds", False)
    _wrap_call(flusher.GroupCommitFlusher, "_start_round", "flusher rounds", False)
    _wrap_coroutine(share_fetch, "_acquire", "  acquisition", True)
    _wrap_coroutine(ReplicaManager, "fetch", "  log read", True)
    _wrap_call(connection.KafkaConnection, "_encode_response", "  answer encoding", True)
    _wrap_call(connection, "write_response", "  answer send", True, ACCOUNT.send_wall)


def _loop_cpu(tid: int) -> float:
    with open(f"/proc/self/task/{tid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve(argv: list[str]) -> None:
    """The broker (`python -m broker` with `argv`), attributed; SIGUSR1 prints what was
    counted since the last SIGUSR1 to stderr and starts again."""
    _instrument()
    tid = threading.get_native_id()
    base = [_loop_cpu(tid)]

    def report(*_: object) -> None:
        total = _loop_cpu(tid) - base[0]
        fetches = max(ACCOUNT.calls["request ShareFetch"], 1)
        lines = [f"ShareFetches {ACCOUNT.calls['request ShareFetch']}, loop thread CPU {total:.3f} s:",
                 f"  {'total':24} {total / fetches * 1e6:7.0f} us per ShareFetch"]
        top = sum(v for k, v in ACCOUNT.cpu.items() if not k.startswith(" "))
        for key, value in sorted(ACCOUNT.cpu.items(), key=lambda kv: kv[0].startswith(" ")):
            lines.append(f"  {key:24} {value / fetches * 1e6:7.0f} us")
        lines.append(f"  {'rest (uvloop, timers)':24} {(total - top) / fetches * 1e6:7.0f} us")
        if ACCOUNT.send_wall:
            walls = sorted(ACCOUNT.send_wall)
            lines.append(f"  answer send wall p50 {walls[len(walls) // 2] * 1e6:.0f} us, "
                         f"p90 {walls[int(len(walls) * 0.9)] * 1e6:.0f} us ({len(walls)} sends)")
        print("\n".join(lines), file=sys.stderr, flush=True)
        ACCOUNT.cpu.clear()
        ACCOUNT.calls.clear()
        ACCOUNT.send_wall.clear()
        base[0] = _loop_cpu(tid)

    signal.signal(signal.SIGUSR1, report)
    sys.argv = ["broker", *argv]
    runpy.run_module("broker", run_name="__main__", alter_sys=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=6)
    args, rest = parser.parse_known_args()
    if rest[:1] == ["--serve"]:
        serve(rest[1:])
        return
    from bench.workloads import (
        JAVA_DEFAULT_BATCH_BYTES,
        _share_group_rate,
        create_topic,
        payload,
        prefill,
        unique,
    )
    from odradek.testing import OdradekBroker

    with OdradekBroker(entry=("-m", "bench.share_fetch_cpu", "--serve")) as broker:
        bootstrap = broker.bootstrap
        topic = unique("share-cpu")
        create_topic(bootstrap, topic)
        prefill(bootstrap, topic, payload(100), RECORDS, 60, **{"batch.size": JAVA_DEFAULT_BATCH_BYTES})
        pid = broker.pid
        assert pid is not None
        os.kill(pid, signal.SIGUSR1)  # from here on
        rates = [_share_group_rate(bootstrap, topic, RECORDS, 2, 60) for _ in range(args.runs)]
        os.kill(pid, signal.SIGUSR1)
        time.sleep(0.5)
        print(f"share runs: {statistics.median(rates):,.0f} records/s at the median "
              f"({min(rates):,.0f}-{max(rates):,.0f})")
        text = broker.log()
        start = text.rfind("ShareFetches ")
        print(text[start:].split("\n20")[0] if start >= 0 else "(no report in the broker's log)")


if __name__ == "__main__":
    main()
