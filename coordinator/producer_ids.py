"""Producer ids handed out in blocks whose end is persisted before any id of the block is
used, so an id never repeats, whatever the restart or crash (ids of a block cut short by
a crash are skipped, never reused). A broker alone keeps its reservation in a file of its
data directory; brokers sharing a PostgreSQL database take blocks from a sequence of it
(storage/postgres/producer_ids.py), so no two brokers hand out one id."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Protocol

BLOCK_FILE = "producer_id_block"
DEFAULT_BLOCK_SIZE = 1000
MAX_PRODUCER_ID = (1 << 63) - 1


class ProducerIdsExhaustedError(RuntimeError):
    pass


class ProducerIdBlocks(Protocol):
    """Where blocks come from when several brokers hand out ids (Kafka's controller
    allocating ProducerIdsBlock)."""

    async def reserve(self) -> tuple[int, int]:
        """A block [start, end) no broker was ever given, durably reserved."""
        ...


class ProducerIdManager:
    """`data_dir=None` keeps the reservation in memory only (unit tests); `blocks` takes
    them from a shared source instead of the file."""

    def __init__(
        self, data_dir: Path | None, block_size: int = DEFAULT_BLOCK_SIZE, *, blocks: ProducerIdBlocks | None = None
    ) -> None:
        if block_size <= 0:
            raise ValueError("block_size must be positive")
        self.path = None if data_dir is None or blocks is not None else Path(data_dir) / BLOCK_FILE
        self.block_size = block_size
        self.blocks = blocks
        self._next = 0  # the next id to hand out
        self._end = 0  # the first id not covered by the persisted reservation
        self._lock = asyncio.Lock()
        if self.path is not None and self.path.exists():
            self._next = self._end = read_reserved_end(self.path)

    @property
    def reserved_end(self) -> int:
        return self._end

    async def generate(self) -> int:
        async with self._lock:
            if self._next >= self._end:
                await self._reserve_block()
            pid = self._next
            self._next += 1
            return pid

    async def _reserve_block(self) -> None:
        if self.blocks is not None:
            start, end = await self.blocks.reserve()
            if end > MAX_PRODUCER_ID:
                raise ProducerIdsExhaustedError("no producer ids left")
            self._next, self._end = start, end
            return
        new_end = self._end + self.block_size
        if new_end > MAX_PRODUCER_ID:
            raise ProducerIdsExhaustedError("no producer ids left")
        if self.path is not None:
            await asyncio.to_thread(write_reserved_end, self.path, new_end)
        self._next = self._end
        self._end = new_end


def read_reserved_end(path: Path) -> int:
    values = {}
    for line in path.read_text().splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            values[k.strip()] = v.strip()
    if values.get("version") != "1" or "reserved_end" not in values:
        # Guessing a value could hand out ids twice: refuse to start instead.
        raise RuntimeError(f"{path}: unreadable producer id reservation")
    return int(values["reserved_end"])


def write_reserved_end(path: Path, reserved_end: int) -> None:
    """Atomic and durable: write a temporary file, fsync it, rename over, fsync the directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as f:
        f.write(f"version=1\nreserved_end={reserved_end}\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
