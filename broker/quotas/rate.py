"""Kafka's windowed rate (`SampledStat` with `Rate`) and the throttle time of a quota
violation (`QuotaUtils.throttleTime`), on timestamps the caller passes in.

A rate keeps `samples` windows of `window_ms` each. A value goes into the current window,
or a new one once the current is `window_ms` old; windows older than `samples * window_ms`
are reset. The rate is the sum of the windows over the time they span, counted as at least
`samples - 1` full windows so that a burst at start is not measured over a few milliseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(slots=True)
class _Sample:
    start_ms: int
    value: float = 0.0

    def reset(self, now_ms: int) -> None:
        self.start_ms = now_ms
        self.value = 0.0


class Rate:
    def __init__(self, samples: int, window_ms: int) -> None:
        self.samples = max(2, samples)
        self.window_ms = max(1, window_ms)
        self._windows: list[_Sample] = []
        self._current = 0

    def record(self, value: float, now_ms: int) -> None:
        sample = self._current_sample(now_ms)
        if now_ms - sample.start_ms >= self.window_ms:
            # The new window starts on the grid of the previous one (SampledStat.record).
            previous_end = sample.start_ms + self.window_ms
            sample = self._advance(now_ms - (now_ms - previous_end) % self.window_ms)
        sample.value += value

    def measure(self, now_ms: int) -> float:
        """Units per second."""
        self._purge(now_ms)
        total = sum(s.value for s in self._windows)
        return total / (self.window_size_ms(now_ms) / 1000)

    def window_size_ms(self, now_ms: int) -> int:
        """The span the rate is measured over (Rate.windowSize)."""
        oldest = min((s.start_ms for s in self._windows), default=now_ms)
        elapsed = now_ms - oldest
        min_full = self.samples - 1
        full = elapsed // self.window_ms
        if full < min_full:
            elapsed += (min_full - full) * self.window_ms
        return elapsed

    def _current_sample(self, now_ms: int) -> _Sample:
        if not self._windows:
            self._windows.append(_Sample(now_ms))
            self._current = 0
        return self._windows[self._current]

    def _advance(self, start_ms: int) -> _Sample:
        self._current = (self._current + 1) % self.samples
        if self._current >= len(self._windows):
            sample = _Sample(start_ms)
            self._windows.append(sample)
            return sample
        sample = self._windows[self._current]
        sample.reset(start_ms)
        return sample

    def _purge(self, now_ms: int) -> None:
        expire_ms = self.samples * self.window_ms
        for sample in self._windows:
            if now_ms - sample.start_ms >= expire_ms:
                sample.reset(now_ms)


def throttle_time_ms(observed: float, bound: float, window_ms: int) -> int:
    """How long until the rate falls back to the bound if nothing more is recorded
    (Kafka's QuotaUtils.throttleTime): (observed - bound) / bound * window."""
    if observed <= bound or bound <= 0:
        return 0
    # Java's Math.round: halves round up.
    return math.floor((observed - bound) / bound * window_ms + 0.5)
