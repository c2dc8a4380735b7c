"""Record batches still in a segment file, for a Fetch to send without copying them.

A Fetch response carries them as one of its buffers (where `protocol.codec.Writer` puts a
large records field: a part of its own, never copied), and a plaintext connection sends
them with sendfile, from the page cache to the socket without a copy through the process
(Kafka's FileRecords.writeTo, its zero-copy path; broker/connection.py); a TLS connection,
or a socket that does not take them at once, reads them (`read`).
"""

from __future__ import annotations

import os

# Below this a Fetch reads the bytes (one pread): a descriptor to duplicate and a
# sendfile of their own cost more than the copy; the records field's own threshold for a
# separate buffer (protocol.codec.ZERO_COPY_MIN_BYTES) is lower.
FILE_RECORDS_MIN_BYTES = 64 * 1024
# A range is cut at whole batches, found by reading their headers one by one; past this
# many (small batches), the Fetch reads the bytes instead.
FILE_RECORDS_MAX_BATCHES = 64


class FileRecords:
    """`length` bytes at `position` of an open file descriptor of their own (a duplicate,
    so the segment may be closed, rolled or deleted meanwhile: the batches below the high
    watermark never change). `next_offset`: the offset after the last batch. The
    descriptor is closed once the bytes are sent or read (`close`), or when dropped."""

    __slots__ = ("_fd", "length", "next_offset", "position")

    def __init__(self, fd: int, position: int, length: int, next_offset: int) -> None:
        self._fd: int | None = fd
        self.position = position
        self.length = length
        self.next_offset = next_offset

    def __len__(self) -> int:
        return self.length

    def fileno(self) -> int:
        if self._fd is None:
            raise ValueError("file records already closed")
        return self._fd

    def send(self, socket_fd: int) -> int:
        """sendfile as much as a non-blocking socket takes at once; the bytes sent (short
        also on a broken socket, which the writer of the rest then finds)."""
        fd = self.fileno()
        sent = 0
        while sent < self.length:
            try:
                n = os.sendfile(socket_fd, fd, self.position + sent, self.length - sent)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                break
            if n == 0:  # the file ended early (never: segments do not shrink below it)
                break
            sent += n
        return sent

    def read(self, start: int = 0) -> bytes:
        """The bytes from `start` (relative to `position`) to the end, then close."""
        fd = self.fileno()
        try:
            chunks = []
            at, end = self.position + start, self.position + self.length
            while at < end:
                chunk = os.pread(fd, end - at, at)
                if not chunk:
                    break
                chunks.append(chunk)
                at += len(chunk)
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)
        finally:
            self.close()

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __del__(self) -> None:
        self.close()
