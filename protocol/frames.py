"""Splits a byte stream into Kafka frames: a big-endian int32 size, then that many bytes."""

from __future__ import annotations

import struct

from protocol.codec import DecodeError

DEFAULT_MAX_FRAME_BYTES = 100 * 1024 * 1024  # Kafka's socket.request.max.bytes
_SIZE = struct.Struct(">i")


class FrameSizeError(DecodeError):
    """A size prefix that is negative, zero, or above the configured maximum."""


class FrameReader:
    """Accepts bytes in any split and returns every frame completed so far.

    The size is checked before the frame's bytes are buffered, so a peer cannot make the
    reader hold more than `max_frame_bytes` plus one partial read.
    """

    __slots__ = ("_buf", "_max", "_need")

    def __init__(self, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
        self._buf = bytearray()
        self._max = max_frame_bytes
        self._need = -1  # size of the frame being gathered, or -1 while reading its prefix

    @property
    def buffered(self) -> int:
        return len(self._buf)

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        self._buf += data
        frames: list[bytes] = []
        buf = self._buf
        pos = 0
        end = len(buf)
        while True:
            if self._need < 0:
                if end - pos < 4:
                    break
                (size,) = _SIZE.unpack_from(buf, pos)
                if size <= 0 or size > self._max:
                    self._buf = bytearray()
                    raise FrameSizeError(f"frame size {size} outside 1..{self._max}")
                self._need = size
                pos += 4
            if end - pos < self._need:
                break
            frames.append(bytes(buf[pos : pos + self._need]))
            pos += self._need
            self._need = -1
        if pos:
            del buf[:pos]
        return frames


def frame(payload: bytes | bytearray | memoryview) -> bytes:
    """Prefixes a payload with its size."""
    return _SIZE.pack(len(payload)) + bytes(payload)
