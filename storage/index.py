"""Sparse offset index and time index of a segment.

Entries live in memory (two arrays) and, for the disk engine, are appended to the
`.index` / `.timeindex` file as they are made. Files are never trusted blindly: a file
whose entries are not monotonic or point outside the segment is reported as damaged
and rebuilt from the log by the loader.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import struct
from array import array

OFFSET_ENTRY = struct.Struct(">ii")  # relative offset, file position
TIME_ENTRY = struct.Struct(">qi")  # timestamp, relative offset


class _Index:
    ENTRY: struct.Struct

    def __init__(self, base_offset: int, path: str | None, max_entries: int, *, lazy: bool = False) -> None:
        self.base_offset = base_offset
        self.path = path
        self.max_entries = max(1, max_entries)
        self.keys: array[int] = array("q")
        self.values: array[int] = array("q")
        self._fd: int | None = None
        # Lazy: no file until the first entry (an index is rebuilt from its log when its
        # file is missing or damaged, so its directory entry needs no sync of its own).
        self._pending = lazy and path is not None
        if path is not None and not lazy:
            self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def is_full(self) -> bool:
        return len(self.keys) >= self.max_entries

    def _write(self, raw: bytes) -> None:
        if self._pending and self.path is not None:
            self._pending = False
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        if self._fd is not None:
            os.write(self._fd, raw)

    def reset(self) -> None:
        """Drop every entry (before a rebuild)."""
        self.keys = array("q")
        self.values = array("q")
        if self._fd is not None:
            os.ftruncate(self._fd, 0)

    def read_file(self) -> bytes:
        if self._fd is None:
            return b""
        size = os.fstat(self._fd).st_size
        return os.pread(self._fd, size, 0) if size else b""

    def sync(self) -> None:
        fd = self._fd  # may be closed concurrently by the event loop: tolerate it
        if fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(fd)

    def close(self) -> None:
        self._pending = False
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def delete(self) -> None:
        self.close()
        if self.path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)


class OffsetIndex(_Index):
    """offset -> file position of the batch starting at that offset."""

    ENTRY = OFFSET_ENTRY

    def append(self, offset: int, position: int) -> None:
        self.keys.append(offset)
        self.values.append(position)
        self._write(OFFSET_ENTRY.pack(offset - self.base_offset, position))

    def lookup(self, offset: int) -> tuple[int, int]:
        """The greatest indexed (offset, position) at or below `offset`, else the segment start."""
        i = bisect.bisect_right(self.keys, offset) - 1
        if i < 0:
            return self.base_offset, 0
        return self.keys[i], self.values[i]

    def last_position(self) -> int:
        return self.values[-1] if self.values else 0

    def load(self, log_size: int) -> bool:
        """Load entries from the file; False when the file is damaged."""
        raw = self.read_file()
        if len(raw) % OFFSET_ENTRY.size:
            return False
        prev_off, prev_pos = -1, -1
        for rel, pos in OFFSET_ENTRY.iter_unpack(raw):
            if rel <= prev_off or pos <= prev_pos or rel < 0 or pos >= log_size:
                return False
            prev_off, prev_pos = rel, pos
            self.keys.append(self.base_offset + rel)
            self.values.append(pos)
        return True


class TimeIndex(_Index):
    """max timestamp so far -> offset of the batch that reached it (strictly increasing)."""

    ENTRY = TIME_ENTRY

    def maybe_append(self, timestamp: int, offset: int) -> None:
        if self.keys and timestamp <= self.keys[-1]:
            return
        if timestamp < 0:
            return
        self.keys.append(timestamp)
        self.values.append(offset)
        self._write(TIME_ENTRY.pack(timestamp, offset - self.base_offset))

    def lookup_before(self, timestamp: int) -> int:
        """An offset from where every later record with ts >= `timestamp` can be found:
        the batch of the last entry whose max-so-far is strictly below it (all of that
        batch and before is older), else the segment start."""
        i = bisect.bisect_left(self.keys, timestamp) - 1
        return self.values[i] if i >= 0 else self.base_offset

    def last_entry(self) -> tuple[int, int] | None:
        return (self.keys[-1], self.values[-1]) if self.keys else None

    def load(self, next_offset: int) -> bool:
        raw = self.read_file()
        if len(raw) % TIME_ENTRY.size:
            return False
        prev_ts, prev_off = -1, -1
        for ts, rel in TIME_ENTRY.iter_unpack(raw):
            off = self.base_offset + rel
            if ts <= prev_ts or rel < prev_off or rel < 0 or off >= next_offset:
                return False
            prev_ts, prev_off = ts, rel
            self.keys.append(ts)
            self.values.append(off)
        return True
