"""Byte stores behind a segment: a real file (pread/pwrite on an fd) or a bytearray.

The segment and index code only sees this small interface, so the memory engine runs
the exact same log logic as the disk engine.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Protocol


class ByteStore(Protocol):
    @property
    def size(self) -> int:
        """Where the data ends (the next append goes here), whatever the file's length."""
        ...

    def append(self, data: bytes | bytearray | memoryview) -> None: ...

    def read(self, position: int, length: int) -> bytes: ...

    def truncate(self, size: int) -> None: ...

    def preallocate(self, limit: int) -> None:
        """Let the store keep zeros ahead of its data, up to `limit` bytes in all."""
        ...

    def seal(self) -> None:
        """No more appends: stop preallocating and cut the store to its data."""
        ...

    def sync(self) -> None:
        """Make appended bytes durable; may run in a worker thread."""
        ...

    def close(self) -> None: ...

    def delete(self) -> None: ...


# A preallocating store keeps zeros ahead of its data, written and made durable on the
# flusher's thread between rounds (`FileStore.extend_ahead`): an fsync round over bytes
# written into that region flushes data only, as neither the file's length nor its block
# map changes, while an append that grows the file also makes fdatasync commit the
# filesystem journal. The region grows in steps that double from ZERO_STEP_MIN to
# ZERO_STEP_MAX, so a partition written once in a while holds little of it.
ZERO_STEP_MIN = 64 * 1024
ZERO_STEP_MAX = 4 * 1024 * 1024
# Zeros are written and synced this much at a time, the write under the store's lock: an
# append that reaches past the zeros waits at most for one such write, and a round for one
# such slice, never for a whole extension.
ZERO_CHUNK = 256 * 1024
_ZEROS = memoryview(bytes(ZERO_CHUNK))
ZERO_ROOM_FACTOR = 16
# Zeros pay where rounds are small: a round saves a journal commit (about 0.1 ms here) and
# the zeros under it cost a write of their own, which for a round of a megabyte costs more
# than the commit saves. A store whose rounds write more than this on average (weighted to
# the recent ones) gets no new zeros and grows as it is written.
ZERO_ROUND_MAX = 128 * 1024


class FileStore:
    """An append-only file. Appends use pwrite at the tracked end, reads use pread, so no
    shared file position is involved and reads never copy more than asked for.

    A `lazy` store starts empty with no file at all: the file is made by the first append,
    and the first sync after that also makes its directory entry durable. A new topic's
    partitions cost no files until they are written.

    `size` is where the data ends; the file may be longer, by the zeros a preallocating
    store keeps ahead of its data (`preallocate`, `extend_ahead`). Reads never go past
    `size`, `seal` cuts the file back to it, and recovery after a crash stops at the zeros
    (a batch length of 0 is no batch: `LogSegment.recover`), as Kafka's `LogSegment`
    trims a preallocated segment when it becomes inactive."""

    __slots__ = (
        "_closed", "_dir_unsynced", "_fd", "_limit", "_lock", "_round_bytes", "_size", "_step", "_sync_failed",
        "_synced_size", "_target", "_written", "path",
    )

    def __init__(self, path: str, *, create: bool = True, lazy: bool = False) -> None:
        self.path = path
        self._closed = False
        self._dir_unsynced = False
        self._fd: int | None = None
        self._size = 0
        # The file's length: data, then zeros up to here. Grown by appends on the event loop
        # and by `extend_ahead` on the flusher's thread: a write that goes past it holds
        # `_lock`, one that stays below it cannot meet the zeros being written.
        self._written = 0
        self._limit = 0  # preallocate up to here (0: not at all)
        self._step = ZERO_STEP_MIN  # of the last extension
        self._target = 0  # the last extension ends here (0: none yet); done once `_written` reaches it
        self._sync_failed: OSError | None = None  # by `extend_ahead`: every later sync fails
        self._synced_size = 0
        self._round_bytes = 0
        self._lock = threading.Lock()
        if not lazy:
            self._fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o644)
            self._size = self._written = self._synced_size = os.fstat(self._fd).st_size

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
        position = self._size
        end = position + len(view)
        try:
            if end <= self._written:
                _pwrite_all(fd, view, position)  # over zeros already in place
            else:
                with self._lock:
                    _pwrite_all(fd, view, position)
                    self._written = max(self._written, end)
        except OSError:
            # Never leave a half-written batch behind the tracked end.
            with self._lock, contextlib.suppress(OSError):
                os.ftruncate(fd, position)
                self._written = position
            raise
        self._size = end

    def read(self, position: int, length: int) -> bytes:
        length = max(0, min(length, self._size - position))
        return os.pread(self._fd, length, position) if length and self._fd is not None else b""

    def duplicate_fd(self) -> int | None:
        """A descriptor of the file of the caller's own (storage.file_records), or None."""
        fd = self._fd
        if fd is None or self._closed:
            return None
        try:
            return os.dup(fd)
        except OSError:
            return None

    def truncate(self, size: int) -> None:
        if self._fd is None:
            return  # nothing written yet: nothing to cut
        with self._lock:
            os.ftruncate(self._fd, size)
            self._size = self._written = size
            self._synced_size = min(self._synced_size, size)

    def preallocate(self, limit: int) -> None:
        self._limit = limit

    def seal(self) -> None:
        with self._lock:
            self._limit = 0
            if self._fd is not None and not self._closed and self._written > self._size:
                # Should the cut fail, the zeros stay and the next load cuts them instead.
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, self._size)
                    self._written = self._size

    def extend_ahead(self) -> bool:
        """One slice of zeros ahead of the data, made durable with the file's new length;
        returns whether more slices are due. Runs on the flusher's thread between rounds
        (storage.flusher), which takes a waiting round before the next slice, so a round
        waits for one slice at most. An extension starts when the zeros ahead run short
        of half a step and goes one step past the data."""
        if not self._limit:
            return False
        if self._target <= self._written:
            size = self._size
            if self._written - size >= self._step // 2 or self._round_bytes > ZERO_ROUND_MAX:
                return False
            step = self._step if self._target == 0 else min(self._step * 2, ZERO_STEP_MAX)
            target = min(size + step, self._limit)
            if target <= self._written or not _room_for(self.path, target - self._written):
                return False
            self._target, self._step = target, step
        with self._lock:
            fd, start = self._fd, self._written
            if fd is None or self._closed or not self._limit:
                self._target = 0
                return False
            if start < self._target:
                count = min(ZERO_CHUNK, self._target - start)
                try:
                    _pwrite_all(fd, _ZEROS[:count], start)
                except OSError:  # a full disk: zeros written in part go, appends grow the file
                    with contextlib.suppress(OSError):
                        os.ftruncate(fd, start)
                    self._target = 0
                    raise
                self._written = start + count
        try:
            self._flush(fd)
        except OSError as exc:
            # Linux reports a failed writeback once per open file: a failure seen here may
            # be the one of data appended meanwhile, so the next round must not succeed.
            self._sync_failed = exc
            raise
        return self._written < self._target

    def sync(self) -> None:
        fd = self._fd
        if self._closed or fd is None:
            return
        size = self._size
        self._flush(fd)
        if size > self._synced_size:  # what a round writes, on average (for `extend_ahead`)
            self._round_bytes = (3 * self._round_bytes + size - self._synced_size) // 4
        self._synced_size = size

    def _flush(self, fd: int) -> None:
        if self._sync_failed is not None:
            failed = self._sync_failed
            raise OSError(failed.errno, f"an earlier fsync of {self.path} failed: {failed.strerror}")
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
        with self._lock:
            if not self._closed:
                self._closed = True
                if self._fd is not None:
                    os.close(self._fd)

    def delete(self) -> None:
        self.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


def _room_for(path: str, zeros: int) -> bool:
    """Zeros only where the disk has room for many times as much: they must never be what
    fills it (a full disk fails appends that go past the zeros)."""
    st = os.statvfs(os.path.dirname(path) or ".")
    return st.f_bavail * st.f_frsize >= ZERO_ROOM_FACTOR * zeros


def _pwrite_all(fd: int, view: memoryview, position: int) -> None:
    written = 0
    while written < len(view):
        written += os.pwrite(fd, view[written:], position + written)


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
        # One copy (slicing the bytearray first would make two); the view is released
        # before the next append may resize the buffer.
        with memoryview(self._buf) as view:
            return view[position : position + length].tobytes()

    def truncate(self, size: int) -> None:
        del self._buf[size:]

    def preallocate(self, limit: int) -> None:
        pass  # a bytearray has no length of its own to grow ahead

    def seal(self) -> None:
        pass

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
