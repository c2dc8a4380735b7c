"""Producer id blocks from a sequence of the database, so that brokers sharing it never
hand out one id twice (the file of a single broker's data directory cannot do that).

The sequence steps by a whole block: `nextval` hands each caller the start of a block of
its own, atomically and durably, and a value is never given twice, even by a transaction
that rolls back. It is created on first use rather than by a migration (they are numbered
without gaps, and the schema's own are the cluster's): under a lock of its own, starting
above every producer id already in the log and above the `floor` the caller knows of (the
block file a single broker used before), so ids used before the sequence are not reused."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import asyncpg

SEQUENCE = "producer_id_blocks"
BLOCK_SIZE = 1000
# Held while creating the sequence, so two brokers starting at once create it once.
_CREATE_LOCK = 0x6F64726164656B01  # "odradek" 1


class PostgresProducerIdBlocks:
    def __init__(self, connect: Callable[[], Awaitable[asyncpg.Connection]], floor: int = 0) -> None:
        self._connect = connect
        self._floor = floor
        self._increment: int | None = None

    async def reserve(self) -> tuple[int, int]:
        """A block [start, end) no broker on this database was ever given. A connection of
        its own (once per block): the engine's is busy with its rounds."""
        conn = await self._connect()
        try:
            if self._increment is None:
                self._increment = await _ensure_sequence(conn, self._floor)
            start = int(await conn.fetchval(f"SELECT nextval('{SEQUENCE}')"))
        finally:
            await conn.close()
        return start, start + self._increment


async def _ensure_sequence(conn: asyncpg.Connection, floor: int) -> int:
    """Create the sequence if it is missing; returns its increment (the block size)."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _CREATE_LOCK)
        if await conn.fetchval("SELECT to_regclass($1)", SEQUENCE) is None:
            used = await conn.fetchval("SELECT coalesce(max(producer_id) + 1, 0) FROM batches")
            start = max(int(used), floor, 0)
            # DDL takes no parameters: `start` is an integer computed here.
            await conn.execute(
                f"CREATE SEQUENCE {SEQUENCE} AS bigint INCREMENT BY {BLOCK_SIZE} MINVALUE 0 START WITH {start}"
            )
        increment = await conn.fetchval(
            "SELECT seqincrement FROM pg_sequence WHERE seqrelid = to_regclass($1)", SEQUENCE
        )
    return int(increment)
