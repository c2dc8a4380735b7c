"""The `cpu.affinity` setting: the CPUs the broker process runs on.

Why one CPU can be faster than all of them: the event loop and the fsync threads
(storage/flusher.py) hand the GIL to each other twice per fsync round. Spread over two
busy cores, each handoff waited for a thread to be scheduled on the other core while the
loop took the GIL back; on one core the thread that blocks hands over at once. Measured
on the 2-core bench machine beside a full-speed producer (bench/README.md, latency rows):
the end-to-end p50 went from 21-50 ms to 2.5-3.8 ms with the broker on one core, and the
producer beside it wrote faster. The GIL lets the broker use about one core anyway.
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
