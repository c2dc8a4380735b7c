"""A batch's payload in PostgreSQL: pieces small enough to stay in a heap page (migration
0004_payload_pieces.sql), split on the way in, joined on the way out."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

# With the header columns a row of one piece is about 120 bytes more: under the table's
# toast_tuple_target (8160), so PostgreSQL never TOASTs it (tests check the TOAST table
# stays empty). Larger pieces would be TOASTed whole; smaller ones cost more rows.
PIECE_BYTES = 7936

# Kafka's LOG_OVERHEAD: a batch's base offset and length fields, before what the length counts.
_LENGTH_AT = 8
LOG_OVERHEAD = 12


def split(payload: bytes | bytearray | memoryview) -> list[bytes | bytearray | memoryview]:
    """The pieces of `payload` in order (views of it, never copies)."""
    size = len(payload)
    if size <= PIECE_BYTES:
        return [payload]
    view = memoryview(payload)
    return [view[start:start + PIECE_BYTES] for start in range(0, size, PIECE_BYTES)]


def join(rows: Iterable[Any]) -> Iterator[tuple[Any, bytes]]:
    """(row of piece 0, the whole payload) for each batch of `rows`: rows with `base_offset`,
    `piece` and `payload`, a batch's pieces consecutive and in order."""
    first: Any = None
    parts: list[bytes] = []
    for row in rows:
        if row["piece"] == 0:
            if first is not None:
                yield first, parts[0] if len(parts) == 1 else b"".join(parts)
            first, parts = row, [row["payload"]]
        elif first is not None:  # (never without its piece 0: batches are deleted whole)
            parts.append(row["payload"])
    if first is not None:
        yield first, parts[0] if len(parts) == 1 else b"".join(parts)


async def join_async(rows: AsyncIterable[Any]) -> AsyncIterator[tuple[Any, bytes]]:
    """`join` over a cursor."""
    first: Any = None
    parts: list[bytes] = []
    async for row in rows:
        if row["piece"] == 0:
            if first is not None:
                yield first, parts[0] if len(parts) == 1 else b"".join(parts)
            first, parts = row, [row["payload"]]
        elif first is not None:
            parts.append(row["payload"])
    if first is not None:
        yield first, parts[0] if len(parts) == 1 else b"".join(parts)


def batch_size(length_field: bytes) -> int:
    """A batch's size from its length field (bytes 8-11 of its piece 0)."""
    return LOG_OVERHEAD + int.from_bytes(length_field, "big", signed=True)
