"""The `cpu.affinity` setting: the CPUs the broker process runs on.

Why one CPU can be faster than two: each fsync round is handed from the event loop to an
fsync thread and back (storage/flusher.py), each time through the GIL and a thread
wake-up; on two busy cores a small acks=all record beside a full-speed producer waited
for those handoffs longer than for its fdatasync. The cost: the kernel work of the fsync
threads and the sockets shares that CPU with the loop, and a consumer alone at full speed
read slower. Figures in docs/operations.md and bench/README.md.
"""

from __future__ import annotations

import os


def parse_cpus(text: str) -> frozenset[int]:
    """`0,2-3` -> {0, 2, 3}; empty text -> empty set (no affinity asked)."""
    cpus: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        first, dash, last = part.partition("-")
        low = int(first)
        high = int(last) if dash else low
        if low < 0 or high < low:
            raise ValueError(f"not a CPU range: {part!r}")
        cpus.update(range(low, high + 1))
    return frozenset(cpus)


def pin_process(cpus: frozenset[int]) -> None:
    """Every thread of this process onto `cpus` (Linux sets it per thread; threads started
    later inherit it from their creator)."""
    try:
        threads = [int(tid) for tid in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]
    for tid in threads:
        try:
            os.sched_setaffinity(tid, cpus)
        except ProcessLookupError:  # the thread ended meanwhile
            continue
