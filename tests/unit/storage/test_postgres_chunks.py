"""storage/postgres/chunks.py: a segment's bytes as chunks read back exactly as appended,
whatever range a read asks for; large batches kept as appended, small ones copied."""

from __future__ import annotations

import os

from storage.postgres.chunks import KEEP_BYTES, Chunks


def test_reads_of_every_range_match_the_bytes_appended() -> None:
    frame = bytearray(os.urandom(KEEP_BYTES * 3))
    appended = [
        b"a" * 10,
        b"b" * 300,
        memoryview(frame)[5 : 5 + KEEP_BYTES * 2],  # kept: most of its frame
        b"c" * 7,
        bytes(os.urandom(KEEP_BYTES)),  # kept: a buffer of its own
        memoryview(bytearray(os.urandom(KEEP_BYTES * 5)))[:KEEP_BYTES],  # copied: a fifth of its frame
        b"d",
    ]
    chunks = Chunks()
    for data in appended:
        chunks.append(data)
    whole = b"".join(bytes(d) for d in appended)
    assert len(chunks) == len(whole)
    edges = sorted({0, 1, 9, 10, 11, 309, 310, 311, len(whole) - 1, len(whole)} | {
        sum(len(d) for d in appended[:i]) + delta for i in range(len(appended)) for delta in (-1, 0, 1)
    })
    edges = [e for e in edges if 0 <= e <= len(whole)]
    for start in edges:
        for end in edges:
            if end >= start:
                assert chunks.read(start, end - start) == whole[start:end], (start, end)
    assert chunks.read(len(whole) - 3, 100) == whole[-3:]  # short at the end
    assert chunks.read(len(whole), 5) == b""


def test_appends_after_reads_and_clear() -> None:
    chunks = Chunks()
    chunks.append(b"xy")
    assert chunks.read(0, 2) == b"xy"
    chunks.append(b"z")  # the own chunk grows after a read released its view
    assert chunks.read(1, 2) == b"yz"
    chunks.clear()
    assert len(chunks) == 0 and chunks.read(0, 1) == b""
    chunks.append(b"q")
    assert chunks.read(0, 1) == b"q"
