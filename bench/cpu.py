"""CPU time of the brokers (and of the PostgreSQL server behind one) from /proc/<pid>/stat,
sampled on a background thread so that a workload's measured part (its window, which it
reports: see `bench.workloads.throughput`) can be cut out of the whole run, whose setup
(topic creation, a consumer's prefill) is not measured."""

from __future__ import annotations

import bisect
import os
import threading
import time
from collections.abc import Callable

TICK = os.sysconf("SC_CLK_TCK")
# How long a list of PostgreSQL's processes is trusted: its backends live as long as the
# broker's connection, its background workers as long as the server.
CHILDREN_REFRESH_SECONDS = 1.0


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    # The command name is in parentheses and may hold spaces: split after it.
    return text[text.rindex(")") + 2:].split()


def process_cpu(pid: int, *, reaped_children: bool = False) -> float | None:
    """utime + stime of a process in seconds (plus those of its children it has waited
    for, with `reaped_children`), or None when it is gone."""
    fields = _stat_fields(pid)
    if fields is None:
        return None
    # After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
    ticks = int(fields[11]) + int(fields[12])
    if reaped_children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / TICK


def runqueue_wait(pid: int) -> float | None:
    """Seconds the threads of a process spent runnable but waiting for a CPU
    (`/proc/<pid>/task/<tid>/schedstat`, its second field), or None when it is gone: on a
    machine shared with other work, what a process that is not busy was short of."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    total = 0
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat_fields(int(entry))
        if fields is not None and int(fields[1]) == pid:
            found.append(int(entry))
    return found


class TreeCpu:
    """A server made of a parent and its children (PostgreSQL's postmaster and backends):
    the parent's own time, its reaped children's, and its live children's."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._children: list[int] = []
        self._listed = 0.0

    def __call__(self) -> float | None:
        now = time.monotonic()
        if now - self._listed > CHILDREN_REFRESH_SECONDS:
            self._children = children_of(self.pid)
            self._listed = now
        total = process_cpu(self.pid, reaped_children=True)
        if total is None:
            return None
        for child in self._children:
            total += process_cpu(child) or 0.0
        return total


class TreeWait:
    """`runqueue_wait` of a parent and its live children (PostgreSQL's backends)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._children: list[int] = []
        self._listed = 0.0

    def __call__(self) -> float | None:
        now = time.monotonic()
        if now - self._listed > CHILDREN_REFRESH_SECONDS:
            self._children = children_of(self.pid)
            self._listed = now
        total = runqueue_wait(self.pid)
        if total is None:
            return None
        for child in self._children:
            total += runqueue_wait(child) or 0.0
        return total


class CpuSampler:
    """Samples named CPU counters (name -> a function returning seconds) every `interval`
    and answers the CPU spent by each between two wall-clock times, interpolated."""

    def __init__(self, counters: dict[str, Callable[[], float | None]], interval: float = 0.02) -> None:
        self._counters = counters
        self._interval = interval
        self._samples: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in counters}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cpu-sampler", daemon=True)

    def __enter__(self) -> CpuSampler:
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(2)

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.sample()

    def sample(self) -> None:
        for name, counter in self._counters.items():
            value = counter()
            if value is None:
                continue
            now = time.time()
            with self._lock:
                times, values = self._samples[name]
                times.append(now)
                values.append(value)

    def _at(self, name: str, when: float) -> float | None:
        times, values = self._samples[name]
        i = bisect.bisect_left(times, when)
        if i == 0 or i >= len(times):
            return None
        t0, t1 = times[i - 1], times[i]
        v0, v1 = values[i - 1], values[i]
        return v0 if t1 == t0 else v0 + (v1 - v0) * (when - t0) / (t1 - t0)

    def spent(self, name: str, start: float, end: float) -> float | None:
        """CPU seconds of counter `name` between two `time.time()` instants, or None when
        the samples do not cover them."""
        self.sample()
        with self._lock:
            if name not in self._samples:
                return None
            a, b = self._at(name, start), self._at(name, end)
        return None if a is None or b is None else max(0.0, b - a)
