"""Byte stores behind a segment: a real file (pread/pwrite on an fd) or a bytearray.

The segment and index code only sees this small interface, so the memory engine runs
the exact same log logic as the disk engine.
"""

from __future__ import annotations

import contextlib
import os
from typing import Protocol


class ByteStore(Protocol):
    @property
    def size(self) -> int: ...

    def append(self, data: bytes | bytearray | memoryview) -> None: ...

    def read(self, position: int, length: int) -> bytes: ...

    def truncate(self, size: int) -> None: ...

    def sync(self) -> None:
        """Make appended bytes durable; may run in a worker thread."""
        ...

    def close(self) -> None: ...

    def delete(self) -> None: ...


class FileStore:
    """An append-only file. Appends use pwrite at the tracked end, reads use pread, so no
    shared file position is involved and reads never copy more than asked for.

    A `lazy` store starts empty with no file at all: the file is made by the first append,
    and the first sync after that also makes its directory entry durable. A new topic's
    partitions cost no files until they are written."""

    __slots__ = ("_closed", "_dir_unsynced", "_fd", "_size", "path")

    def __init__(self, path: str, *, create: bool = True, lazy: bool = False) -> None:
        self.path = path
        self._closed = False
        self._dir_unsynced = False
        self._fd: int | None = None
        self._size = 0
        if not lazy:
            self._fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o644)
            self._size = os.fstat(self._fd).st_size

    @property
    def size(self) -> int:
        return self._size

    def _writable_fd(self) -> int:
        if self._fd is None:
            # Empty by construction: whatever a crash left under this name is not ours.
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
            self._dir_unsynced = True  # before the fd shows: a sync that sees one sees this
            self._fd = fd
        return self._fd

    def append(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data)
        fd = self._writable_fd()
        written = 0
        try:
            while written < len(view):
                written += os.pwrite(fd, view[written:], self._size + written)
        except OSError:
            # Never leave a half-written batch behind the tracked end.
            with contextlib.suppress(OSError):
                os.ftruncate(fd, self._size)
            raise
        self._size += written

    def read(self, position: int, length: int) -> bytes:
        length = max(0, min(length, self._size - position))
        return os.pread(self._fd, length, position) if length and self._fd is not None else b""

    def truncate(self, size: int) -> None:
        if self._fd is None:
            return  # nothing written yet: nothing to cut
        os.ftruncate(self._fd, size)
        self._size = size

    def sync(self) -> None:
        fd = self._fd
        if self._closed or fd is None:
            return
        try:
            # The data and the size that makes it reachable; not timestamps (which fsync
            # would also write, for nothing recovery reads).
            _datasync(fd)
            if self._dir_unsynced:
                sync_directory(os.path.dirname(self.path) or ".")
                self._dir_unsynced = False
        except OSError:
            if self._closed:  # closed by the event loop while we were syncing
                return
            raise

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self._fd is not None:
                os.close(self._fd)

    def delete(self) -> None:
        self.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


class MemoryStore:
    __slots__ = ("_buf", "path")

    def __init__(self, path: str = "") -> None:
        self.path = path
        self._buf = bytearray()

    @property
    def size(self) -> int:
        return len(self._buf)

    def append(self, data: bytes | bytearray | memoryview) -> None:
        self._buf += data

    def read(self, position: int, length: int) -> bytes:
        return bytes(self._buf[position : position + length])

    def truncate(self, size: int) -> None:
        del self._buf[size:]

    def sync(self) -> None:
        pass

    def close(self) -> None:
        pass

    def delete(self) -> None:
        self._buf = bytearray()


def sync_directory(path: str) -> None:
    """fsync a directory so file creations/renames/unlinks in it are durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(path: str, data: bytes, mode: int = 0o644) -> None:
    """write temp + fsync + rename + fsync dir: the file is either old or new, never torn."""
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    sync_directory(os.path.dirname(path) or ".")


class DirectorySync:
    """A flusher entry that fsyncs a directory (after a segment file is created)."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def sync(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            sync_directory(self.path)


# fdatasync where the platform has it (Linux), fsync elsewhere.
_datasync = getattr(os, "fdatasync", os.fsync)
