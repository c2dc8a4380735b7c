"""A segment's bytes in memory as a list of chunks: a large batch is kept as the buffer it
was appended in, small ones are copied together into a buffer of the store's own.

Why: copying each appended megabyte into one growing bytearray (and faulting in its fresh
pages) was about a sixth of the broker's CPU in the PostgreSQL engine's 1 KiB acks=all row
(`perf`, bench/README.md). The appended buffer is the log's own (storage/log.py,
`Log.append_nowait`: a request's frame or a copy, never written to again), and the round
holds it until its COMMIT anyway.
"""

from __future__ import annotations

import bisect

# A batch at least this large is kept as appended, unless its buffer is a view of a much
# larger one (a frame holding other partitions' batches), which it would keep alive.
KEEP_BYTES = 64 * 1024


class Chunks:
    __slots__ = ("_chunks", "_own", "_size", "_starts")

    def __init__(self) -> None:
        self._chunks: list[bytes | bytearray | memoryview] = []
        self._starts: list[int] = []  # where each chunk begins
        self._size = 0
        self._own: bytearray | None = None  # the last chunk, when it is ours to extend

    def __len__(self) -> int:
        return self._size

    def append(self, data: bytes | bytearray | memoryview) -> None:
        size = len(data)
        if size == 0:
            return
        if size >= KEEP_BYTES:
            base = data.obj if isinstance(data, memoryview) else data
            if 2 * size >= len(base):  # type: ignore[arg-type]
                self._add(data)
                self._own = None
                return
        if self._own is None:
            self._own = bytearray(data)
            self._add(self._own)
            return
        self._own += data
        self._size += size

    def _add(self, chunk: bytes | bytearray | memoryview) -> None:
        self._chunks.append(chunk)
        self._starts.append(self._size)
        self._size += len(chunk)

    def read(self, position: int, length: int) -> bytes:
        """Up to `length` bytes from `position` (fewer at the end), as one copy."""
        end = min(position + length, self._size)
        if position >= end:
            return b""
        index = bisect.bisect_right(self._starts, position) - 1
        start = self._starts[index]
        chunk = self._chunks[index]
        if end <= start + len(chunk):
            # The view is released before the next append may resize an own chunk.
            with memoryview(chunk) as view:
                return view[position - start : end - start].tobytes()
        views: list[memoryview] = []
        try:
            while position < end:
                chunk = self._chunks[index]
                start = self._starts[index]
                stop = min(end, start + len(chunk))
                views.append(memoryview(chunk)[position - start : stop - start])
                position = stop
                index += 1
            return b"".join(views)
        finally:
            for view in views:
                view.release()

    def clear(self) -> None:
        self._chunks = []
        self._starts = []
        self._size = 0
        self._own = None
