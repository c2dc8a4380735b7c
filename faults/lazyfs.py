"""A FUSE filesystem that loses power: `python -m faults.lazyfs BACKING MOUNT [EIO_FLAG]`.

Like Jepsen's lazyfs, it keeps every write that was not fsynced in its own memory (the
page cache of this filesystem) and writes it to `BACKING` only when the file is fsynced.
Killing this process (SIGKILL) after the broker is a power loss: what was fsynced is in
`BACKING`, everything else is gone. Metadata (create, rename, unlink, mkdir) goes to
`BACKING` at once, as on a journaling filesystem; a file created and never fsynced comes
back empty.

Files and folders created through the mount belong to the process that created them (the
daemon runs as root; PostgreSQL, run as its own user on such a disk, insists on owning its
data folder), and every user may use the mount (`allow_other`).

Disk faults pass through: a write that would not fit in `BACKING` (with what is already
held) fails with ENOSPC, as a full disk's would, and while the file `EIO_FLAG` exists
every fsync fails with EIO (a failing device).
"""

from __future__ import annotations

import errno
import os
import sys
from dataclasses import dataclass, field
from typing import Any

import mfusepy as fuse


@dataclass
class FileState:
    """One file with writes not yet fsynced; `pending` is the ordered list of writes
    (offset, data) and truncations (-1, size) since the last fsync."""

    fd: int
    size: int
    pending: list[tuple[int, bytes | int]] = field(default_factory=list)
    held: int = 0  # bytes in `pending`


class LazyFS(fuse.Operations):
    use_ns = True

    def __init__(self, backing: str, eio_flag: str | None = None) -> None:
        self.backing = backing
        self.eio_flag = eio_flag
        self.files: dict[str, FileState] = {}
        self.handles: dict[int, FileState] = {}
        self.next_fh = 1

    def _real(self, path: str) -> str:
        return os.path.join(self.backing, path.lstrip("/"))

    def _state(self, path: str) -> FileState:
        state = self.files.get(path)
        if state is None:
            fd = os.open(self._real(path), os.O_RDWR)
            state = self.files[path] = FileState(fd, os.fstat(fd).st_size)
        return state

    # metadata: straight to the backing directory
    def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
        try:
            st = os.lstat(self._real(path))
        except OSError as exc:
            raise fuse.FuseOSError(exc.errno) from None
        attrs = {
            k: getattr(st, k)
            for k in (
                "st_mode",
                "st_nlink",
                "st_uid",
                "st_gid",
                "st_size",
                "st_atime",
                "st_mtime",
                "st_ctime",
            )
        }
        state = self.files.get(path)
        if state is not None:
            attrs["st_size"] = state.size
        return attrs

    def readdir(self, path: str, fh: int) -> list[str]:
        return [".", "..", *os.listdir(self._real(path))]

    def mkdir(self, path: str, mode: int) -> int:
        os.mkdir(self._real(path), mode)
        _own(self._real(path))
        return 0

    def rmdir(self, path: str) -> int:
        os.rmdir(self._real(path))
        return 0

    def unlink(self, path: str) -> int:
        os.unlink(self._real(path))
        self.files.pop(path, None)  # open handles keep their state
        return 0

    def rename(self, old: str, new: str) -> int:
        os.rename(self._real(old), self._real(new))
        self.files.pop(new, None)
        state = self.files.pop(old, None)
        if state is not None:
            self.files[new] = state
        return 0

    def chmod(self, path: str, mode: int) -> int:
        os.chmod(self._real(path), mode)
        return 0

    def chown(self, path: str, uid: int, gid: int) -> int:
        os.chown(self._real(path), uid, gid)
        return 0

    def utimens(self, path: str, times: Any = None) -> int:
        return 0

    def statfs(self, path: str) -> dict[str, int]:
        st = os.statvfs(self.backing)
        return {
            k: getattr(st, k)
            for k in (
                "f_bavail",
                "f_bfree",
                "f_blocks",
                "f_bsize",
                "f_favail",
                "f_ffree",
                "f_files",
                "f_flag",
                "f_frsize",
                "f_namemax",
            )
        }

    # data: held here until fsync
    def create(self, path: str, mode: int, fi: Any = None) -> int:
        fd = os.open(self._real(path), os.O_RDWR | os.O_CREAT, mode)
        _own(self._real(path))
        self.files.pop(path, None)
        self.files[path] = FileState(fd, os.fstat(fd).st_size)
        return self._handle(path)

    def open(self, path: str, flags: int) -> int:
        try:
            return self._handle(path)
        except OSError as exc:
            raise fuse.FuseOSError(exc.errno) from None

    def _handle(self, path: str) -> int:
        fh = self.next_fh
        self.next_fh += 1
        self.handles[fh] = self._state(path)
        return fh

    def release(self, path: str, fh: int) -> int:
        self.handles.pop(fh, None)
        return 0

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        state = self.handles.get(fh) or self._state(path)
        end = min(offset + size, state.size)
        if end <= offset:
            return b""
        buf = bytearray(os.pread(state.fd, end - offset, offset))
        buf.extend(bytes(end - offset - len(buf)))
        for at, item in state.pending:
            if at < 0:  # a truncation: nothing past it survives, later writes may refill
                assert isinstance(item, int)
                if item < end:
                    start = max(item, offset) - offset
                    buf[start:] = bytes(len(buf) - start)
            else:
                assert isinstance(item, bytes)
                lo, hi = max(at, offset), min(at + len(item), end)
                if lo < hi:
                    buf[lo - offset : hi - offset] = item[lo - at : hi - at]
        return bytes(buf)

    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        state = self.handles.get(fh) or self._state(path)
        st = os.statvfs(self.backing)
        held = sum(f.held for f in self.files.values())  # written here, not yet in BACKING
        if st.f_bavail * st.f_frsize < held + len(data):
            raise fuse.FuseOSError(errno.ENOSPC)
        state.held += len(data)
        state.pending.append((offset, bytes(data)))
        state.size = max(state.size, offset + len(data))
        return len(data)

    def truncate(self, path: str, length: int, fh: int | None = None) -> int:
        state = (self.handles.get(fh) if fh is not None else None) or self._state(path)
        state.pending.append((-1, length))
        state.size = length
        return 0

    def fsync(self, path: str, datasync: int, fh: int) -> int:
        state = self.handles.get(fh) or self.files.get(path)
        if state is None:
            return 0
        if self.eio_flag is not None and os.path.exists(self.eio_flag):
            raise fuse.FuseOSError(errno.EIO)
        try:
            while state.pending:
                at, item = state.pending[0]
                if at < 0:
                    assert isinstance(item, int)
                    os.ftruncate(state.fd, item)
                else:
                    assert isinstance(item, bytes)
                    os.pwrite(state.fd, item, at)
                    state.held -= len(item)
                del state.pending[0]
            os.fsync(state.fd)
        except OSError as exc:
            raise fuse.FuseOSError(exc.errno or errno.EIO) from None
        return 0

    def fsyncdir(self, path: str, datasync: int, fh: int) -> int:
        return 0

    def flush(self, path: str, fh: int) -> int:
        return 0


def _own(real: str) -> None:
    """Give what the caller created to the caller."""
    uid, gid, _pid = fuse.fuse_get_context()
    if uid != os.geteuid():
        os.chown(real, uid, gid)


def main() -> None:
    backing, mount, *flag = sys.argv[1:]
    fuse.FUSE(
        LazyFS(os.path.abspath(backing), flag[0] if flag else None),
        mount,
        foreground=True,
        nothreads=True,
        direct_io=True,
        allow_other=True,
    )


if __name__ == "__main__":
    main()
