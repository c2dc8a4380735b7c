"""Helpers shared by the storage tests: one engine of any kind on a ManualClock, and record batches."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from protocol import record_batch as rb
from storage.clock import ManualClock
from storage.file_storage import FileStorage
from storage.log_manager import LogManager
from storage.memory import MemoryState, MemoryStorage
from storage.postgres.engine import PostgresStorage
from storage.random_source import RandomSource
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS


@dataclass
class Harness:
    kind: str
    path: Path
    clock: ManualClock = field(default_factory=ManualClock)
    state: MemoryState = field(default_factory=MemoryState)
    segment_bytes: int | None = None
    broker_defaults: Mapping[str, str] | None = None
    storage: LogManager | None = None
    postgres_url: str | None = None  # the database of kind "postgres"
    random: RandomSource | None = None  # the engine's source of segment roll jitters

    async def open(self) -> LogManager:
        if self.kind == "file":
            self.storage = await FileStorage.open(
                self.path, clock=self.clock, segment_bytes_override=self.segment_bytes,
                broker_defaults=self.broker_defaults, random=self.random,
                producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS,
            )
        elif self.kind == "postgres":
            assert self.postgres_url is not None
            self.storage = await PostgresStorage.open(
                self.postgres_url, clock=self.clock, segment_bytes_override=self.segment_bytes,
                broker_defaults=self.broker_defaults, random=self.random,
                producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS,
            )
        else:
            self.storage = MemoryStorage(
                self.state, clock=self.clock, segment_bytes_override=self.segment_bytes,
                broker_defaults=self.broker_defaults, random=self.random,
                producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS,
            )
        return self.storage

    async def reopen(self) -> LogManager:
        assert self.storage is not None
        await self.storage.close()
        return await self.open()

    async def close(self) -> None:
        if self.storage is not None:
            await self.storage.close()


class Draws:
    """A random source (storage.random_source) answering the given values in turn."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)
        self.stops: list[int] = []

    def randrange(self, stop: int, /) -> int:
        self.stops.append(stop)
        value = self.values.pop(0)
        assert 0 <= value < stop
        return value


def make_batch(
    n: int = 3,
    *,
    ts: int = 1_700_000_000_000,
    value_size: int = 20,
    key_prefix: bytes = b"k",
    step_ms: int = 1,
    **kwargs: object,
) -> bytes:
    records = [
        rb.Record(key_prefix + str(i).encode(), os.urandom(value_size // 2).hex().encode(), [], ts + i * step_ms)
        for i in range(n)
    ]
    return rb.build_batch(records, **kwargs)  # type: ignore[arg-type]
