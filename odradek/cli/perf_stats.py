"""What `odradek perf produce` and `perf consume` measure and how they pace themselves:
Kafka's ProducerPerformance.Stats (records, bytes, latencies, 5-second windows, percentiles)
and ThroughputThrottler, and the live progress line shown on a terminal. The clock is
injected so that pacing and reports are tested without waiting."""

from __future__ import annotations

import sys
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

MB = 1024 * 1024
WINDOW_SECONDS = 5.0
PROGRESS_SECONDS = 0.25
PERCENTILES = (0.5, 0.95, 0.99, 0.999)


@dataclass
class Clock:
    """Seconds on a monotonic clock, and a way to wait."""

    now: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep


class Throttler:
    """Kafka's ThroughputThrottler: at most `per_second` records per second on average since
    the start (-1: unlimited); `wait(sent)` sleeps while `sent` records are ahead of that."""

    def __init__(self, per_second: float, clock: Clock) -> None:
        self.per_second = per_second
        self.clock = clock
        self.start = clock.now()

    def wait(self, sent: int) -> None:
        if self.per_second <= 0:
            return
        due = self.start + sent / self.per_second
        ahead = due - self.clock.now()
        if ahead > 0:
            self.clock.sleep(ahead)


@dataclass
class Window:
    count: int = 0
    bytes: int = 0
    latency_total: float = 0.0
    latency_max: float = 0.0


@dataclass
class Stats:
    """Records, bytes and latencies (milliseconds) since `start`, and in the current window."""

    clock: Clock
    start: float = 0.0
    count: int = 0
    bytes: int = 0
    latency_total: float = 0.0
    latency_max: float = 0.0
    latencies: array[float] = field(default_factory=lambda: array("d"))
    window: Window = field(default_factory=Window)
    window_start: float = 0.0

    def __post_init__(self) -> None:
        self.start = self.window_start = self.clock.now()

    def record(self, size: int, latency_ms: float) -> None:
        self.count += 1
        self.bytes += size
        self.latency_total += latency_ms
        self.latency_max = max(self.latency_max, latency_ms)
        self.latencies.append(latency_ms)
        w = self.window
        w.count += 1
        w.bytes += size
        w.latency_total += latency_ms
        w.latency_max = max(w.latency_max, latency_ms)

    def window_line(self) -> str | None:
        """Kafka's line for the window just ended, if WINDOW_SECONDS have passed (and a new window)."""
        now = self.clock.now()
        elapsed = now - self.window_start
        if elapsed < WINDOW_SECONDS:
            return None
        w = self.window
        line = (f"{w.count} records sent, {w.count / elapsed:.1f} records/sec ({w.bytes / MB / elapsed:.2f} MB/sec), "
                f"{w.latency_total / max(w.count, 1):.1f} ms avg latency, {w.latency_max:.1f} ms max latency.")
        self.window, self.window_start = Window(), now
        return line

    def percentiles(self) -> dict[str, int]:
        """Kafka's: the sorted latencies' element at p * n, in whole milliseconds."""
        ordered = sorted(self.latencies)
        if not ordered:
            return {f"p{_label(p)}": 0 for p in PERCENTILES}
        return {f"p{_label(p)}": int(ordered[min(int(p * len(ordered)), len(ordered) - 1)]) for p in PERCENTILES}

    def summary(self) -> dict[str, Any]:
        elapsed = max(self.clock.now() - self.start, 1e-9)
        return {"records": self.count, "bytes": self.bytes, "elapsed_seconds": round(elapsed, 6),
                "records_per_second": self.count / elapsed, "mb_per_second": self.bytes / MB / elapsed,
                "latency_avg_ms": self.latency_total / max(self.count, 1), "latency_max_ms": self.latency_max,
                "latency_percentiles_ms": self.percentiles()}


def _label(p: float) -> str:
    return f"{p * 100:g}".replace(".", "")


def summary_line(s: dict[str, Any]) -> str:
    """Kafka's final line of kafka-producer-perf-test.sh."""
    p = s["latency_percentiles_ms"]
    return (f"{s['records']} records sent, {s['records_per_second']:f} records/sec ({s['mb_per_second']:.2f} MB/sec), "
            f"{s['latency_avg_ms']:.2f} ms avg latency, {s['latency_max_ms']:.2f} ms max latency, "
            f"{p['p50']} ms 50th, {p['p95']} ms 95th, {p['p99']} ms 99th, {p['p999']} ms 99.9th.")


class Progress:
    """A line rewritten in place on a terminal (stderr), at most every PROGRESS_SECONDS;
    nothing when stderr is not a terminal (a pipe, a file, a test)."""

    def __init__(self, clock: Clock, stream: IO[str] | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.clock = clock
        self.live = self.stream.isatty()
        self.shown_at = -PROGRESS_SECONDS
        self.width = 0

    def show(self, text: str, *, force: bool = False) -> None:
        if not self.live:
            return
        now = self.clock.now()
        if not force and now - self.shown_at < PROGRESS_SECONDS:
            return
        self.shown_at = now
        self.stream.write("\r" + text.ljust(self.width))
        self.width = len(text)
        self.stream.flush()

    def clear(self) -> None:
        if self.live and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0
