"""The perf tools' arithmetic without a broker or a wait: Kafka's throttler pacing, window
lines, latency percentiles and final line, and the progress line only on a terminal."""

from __future__ import annotations

import io

from odradek.cli.perf_stats import Clock, Progress, Stats, Throttler, summary_line


class FakeClock(Clock):
    """Time that moves only when slept through (or advanced by the test)."""

    def __init__(self) -> None:
        self.t = 100.0
        self.slept: list[float] = []
        super().__init__(now=lambda: self.t, sleep=self._sleep)

    def _sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds


def test_throttler_paces_to_the_rate_since_the_start() -> None:
    clock = FakeClock()
    throttler = Throttler(200, clock)
    for sent in range(100):
        throttler.wait(sent)
    # Record n is due n/200 s after the start: the last at 0.495 s.
    assert round(clock.t - 100.0, 6) == 0.495
    clock.t += 1.0  # behind schedule: no wait
    throttler.wait(100)
    assert len(clock.slept) == 99


def test_unlimited_throughput_never_waits() -> None:
    clock = FakeClock()
    throttler = Throttler(-1, clock)
    for sent in range(1000):
        throttler.wait(sent)
    assert clock.slept == []


def test_windows_percentiles_and_summary() -> None:
    clock = FakeClock()
    stats = Stats(clock)
    for i in range(1, 1001):
        stats.record(100, float(i))  # latencies 1..1000 ms
    assert stats.window_line() is None
    clock.t += 5.0
    assert stats.window_line() == ("1000 records sent, 200.0 records/sec (0.02 MB/sec), 500.5 ms avg latency, "
                                   "1000.0 ms max latency.")
    assert stats.window.count == 0
    assert stats.percentiles() == {"p50": 501, "p95": 951, "p99": 991, "p999": 1000}
    clock.t += 5.0
    summary = stats.summary()
    assert (summary["records"], summary["bytes"], summary["records_per_second"]) == (1000, 100_000, 100.0)
    assert summary_line(summary) == (
        "1000 records sent, 100.000000 records/sec (0.01 MB/sec), 500.50 ms avg latency, 1000.00 ms max latency, "
        "501 ms 50th, 951 ms 95th, 991 ms 99th, 1000 ms 99.9th.")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal_and_at_most_four_times_a_second() -> None:
    clock = FakeClock()
    pipe = io.StringIO()
    Progress(clock, pipe).show("10 records")
    assert pipe.getvalue() == ""

    tty = Terminal()
    progress = Progress(clock, tty)
    progress.show("10 records")
    progress.show("20 records")  # too soon
    clock.t += 0.25
    progress.show("300 records")
    progress.clear()
    assert tty.getvalue() == "\r10 records\r300 records" + "\r" + " " * 11 + "\r"
