"""Splits a byte stream into Kafka frames: a big-endian int32 size, then that many bytes."""

from __future__ import annotations

import struct

from protocol.codec import DecodeError

DEFAULT_MAX_FRAME_BYTES = 100 * 1024 * 1024  # Kafka's socket.request.max.bytes
_SIZE = struct.Struct(">i")

Frame = bytearray | memoryview


class FrameSizeError(DecodeError):
    """A size prefix that is negative, zero, or above the configured maximum."""


class FrameReader:
    """Accepts bytes in any split and returns every frame completed so far.

    Each byte is copied at most once: a frame that arrives whole in one chunk is returned as
    a view of that chunk, and a frame spread over several chunks is gathered into a buffer
    of exactly its size (writable, so record batches can be stamped in place). The size is
    checked before that buffer is allocated, so a peer cannot make the reader hold more
    than `max_frame_bytes`.
    """

    __slots__ = ("_filled", "_frame", "_max", "_prefix")

    def __init__(self, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
        self._max = max_frame_bytes
        self._prefix = bytearray()  # a size prefix split across chunks
        self._frame: bytearray | None = None  # the frame being gathered
        self._filled = 0

    @property
    def max_frame_bytes(self) -> int:
        return self._max

    @max_frame_bytes.setter
    def max_frame_bytes(self, value: int) -> None:
        # Lowered while a connection is unauthenticated (Kafka's SaslServerAuthenticator cap).
        self._max = value

    @property
    def buffered(self) -> int:
        return len(self._prefix) + self._filled

    def _check(self, size: int) -> int:
        if size <= 0 or size > self._max:
            self._prefix.clear()
            self._frame = None
            self._filled = 0
            raise FrameSizeError(f"frame size {size} outside 1..{self._max}")
        return size

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame]:
        view = data if isinstance(data, memoryview) else memoryview(data)
        frames: list[Frame] = []
        pos = 0
        end = len(view)
        while pos < end:
            frame = self._frame
            if frame is None:
                if self._prefix or end - pos < 4:
                    take = min(4 - len(self._prefix), end - pos)
                    self._prefix += view[pos : pos + take]
                    pos += take
                    if len(self._prefix) < 4:
                        break
                    (size,) = _SIZE.unpack(self._prefix)
                    self._prefix.clear()
                else:
                    (size,) = _SIZE.unpack_from(view, pos)
                    pos += 4
                self._check(size)
                if end - pos >= size:
                    frames.append(view[pos : pos + size])
                    pos += size
                    continue
                frame = self._frame = bytearray(size)
                self._filled = 0
            take = min(len(frame) - self._filled, end - pos)
            frame[self._filled : self._filled + take] = view[pos : pos + take]
            self._filled += take
            pos += take
            if self._filled == len(frame):
                frames.append(frame)
                self._frame = None
                self._filled = 0
        return frames


def frame(payload: bytes | bytearray | memoryview) -> bytes:
    """Prefixes a payload with its size."""
    return _SIZE.pack(len(payload)) + bytes(payload)
