"""Injected randomness: storage draws its random values (each segment's roll jitter,
Kafka's LogConfig.randomSegmentJitter) from a source it is given, so tests choose them.
`random.Random` is one."""

from __future__ import annotations

import random
from typing import Protocol


class RandomSource(Protocol):
    def randrange(self, stop: int, /) -> int:
        """A random integer in [0, stop)."""
        ...


# The default source of the engines and logs not given one.
SYSTEM_RANDOM: RandomSource = random.Random()
