"""A round's rows of `batches` as PostgreSQL's binary COPY stream (what `COPY ... FROM STDIN
(FORMAT binary)` reads), sent in chunks of about `CHUNK_BYTES`.

Why not asyncpg's `copy_records_to_table`: it encodes field by field into a buffer it grows
by a reallocation for each payload, and sends messages of 512 KiB, so the backend starts
inserting a 1 MB round only once half of it is encoded. Here a chunk goes out once it holds
`CHUNK_BYTES`: PostgreSQL inserts the first rows while the broker encodes the next. In
process, 1 MB rounds: about a third less of the broker's CPU in the COPY, a round about 15%
shorter (bench/README.md, "acks=all on PostgreSQL: where a round goes, the COPY stream").

A batch is one entry of the round (storage/postgres/group_commit.py, `Columns`) and a row
per piece of its payload (storage/postgres/pieces.py) in the stream: the pieces repeat the
batch's header columns, packed once per batch, and are copied straight from the appended
buffer into one chunk buffer the stream reuses (asyncpg copies a chunk into its message
before it asks for the next), so no piece, row or chunk is an object of its own
(bench/README.md, "acks=all on PostgreSQL: the broker's CPU per MB"). The chunk buffer and
asyncpg's message buffer stay under glibc's default mmap threshold (128 KiB): a larger one
may be mapped and faulted in afresh each time, as long as the tail cache keeps every frame
and nothing of that size is freed.
"""

from __future__ import annotations

import struct
from collections.abc import AsyncIterator, Sequence
from typing import Any

from .pieces import PIECE_BYTES

# The table's columns in the order every row gives them (storage/postgres/migrations/).
COLUMNS = (
    "topic_id", "partition", "base_offset", "last_offset", "segment_base", "base_timestamp", "max_timestamp",
    "producer_id", "producer_epoch", "base_sequence", "last_sequence", "transactional", "control", "payload", "piece",
)

# The binary format's header: signature, flags (none), header extension length (none).
HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
TRAILER = (-1).to_bytes(2, "big", signed=True)
CHUNK_BYTES = 65536

# Each field is its length then its value, network byte order: the field count, topic_id
# (uuid), partition (integer), six bigints, producer_epoch (smallint), two integers, two
# booleans (a batch's header columns, the same in each of its rows); then the piece's
# length (the piece follows) and, after it, its number (`_PIECE`).
_HEAD = struct.Struct(">h i16s ii iq iq iq iq iq iq ih ii ii i? i?")
_LENGTH = struct.Struct(">i")
_PIECE = struct.Struct(">ii")
_ROW_BYTES = _HEAD.size + _LENGTH.size + PIECE_BYTES + _PIECE.size  # at most


def head_of(row: tuple[Any, ...]) -> bytes:
    """A batch's header columns as each of its rows starts (`row` in `COLUMNS` order, up to
    `control`)."""
    return _HEAD.pack(
        len(COLUMNS), 16, row[0].bytes, 4, row[1], 8, row[2], 8, row[3], 8, row[4], 8, row[5], 8, row[6],
        8, row[7], 2, row[8], 4, row[9], 4, row[10], 1, row[11], 1, row[12],
    )


async def copy_chunks(batches: Sequence[tuple[Any, ...]]) -> AsyncIterator[bytes | memoryview]:
    """The COPY stream of `batches` (tuples in `COLUMNS` order up to `payload`, none NULL;
    a row per piece of each payload), chunk by chunk. A chunk is valid until the next one
    is asked for."""
    buffer = bytearray(CHUNK_BYTES + _ROW_BYTES)  # never resized: the views stay valid
    view = memoryview(buffer)
    length_into = _LENGTH.pack_into
    piece_into = _PIECE.pack_into
    # Written through `view`: a bytearray's slice assignment copies a source of another
    # type into a bytearray first, a memoryview's copies it straight in.
    size = len(HEADER)
    view[:size] = HEADER
    for batch in batches:
        head = head_of(batch)
        skip = len(head)
        payload = memoryview(batch[13])  # slices of it are views, not copies
        total = len(payload)
        for number, start in enumerate(range(0, total, PIECE_BYTES) if total else (0,)):
            piece = payload[start:start + PIECE_BYTES]
            end = size + skip
            view[size:end] = head
            length_into(buffer, end, len(piece))
            end += 4
            size = end + len(piece)
            view[end:size] = piece
            piece_into(buffer, size, 4, number)
            size += 8
            if size >= CHUNK_BYTES:
                yield view[:size]
                size = 0
    view[size:size + 2] = TRAILER
    yield view[:size + 2]
