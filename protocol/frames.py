"""Splits a byte stream into Kafka frames: a big-endian int32 size, then that many bytes."""

from __future__ import annotations

import struct

from protocol.codec import DecodeError

DEFAULT_MAX_FRAME_BYTES = 100 * 1024 * 1024  # Kafka's socket.request.max.bytes
# What one read may bring in (`FrameReader.get_buffer`): many small frames, or 256 KiB of a
# large one.
SCRATCH_BYTES = 256 * 1024
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

    Fed either with the chunks a transport read (`feed`), or, as an asyncio
    BufferedProtocol, by reads into the buffers it hands out (`get_buffer`,
    `buffer_updated`): a frame larger than the scratch buffer is read straight into its
    own buffer, with no copy at all, and smaller ones are copied once out of the scratch
    buffer the socket was read into. Nothing stays in the scratch buffer between reads (a
    frame's start is carried in a buffer of the reader's own), so the readers of one thread
    may share one (`scratch`). Use one way or the other, not both.
    """

    __slots__ = ("_carry", "_direct", "_filled", "_frame", "_max", "_prefix", "_scratch")

    def __init__(self, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, scratch: bytearray | None = None) -> None:
        self._max = max_frame_bytes
        self._prefix = bytearray()  # a size prefix split across chunks
        self._frame: bytearray | None = None  # the frame being gathered
        self._filled = 0
        self._scratch = scratch  # made on the first read when not given
        # The start of a frame that fits the scratch buffer (its size prefix included),
        # carried from one read to the next.
        self._carry = bytearray()
        self._direct = False  # the last buffer handed out was the frame's own

    @property
    def max_frame_bytes(self) -> int:
        return self._max

    @max_frame_bytes.setter
    def max_frame_bytes(self, value: int) -> None:
        # Lowered while a connection is unauthenticated (Kafka's SaslServerAuthenticator cap).
        self._max = value

    @property
    def buffered(self) -> int:
        """Bytes of frames not returned yet, not counting a size prefix already read."""
        carry = len(self._carry)
        return len(self._prefix) + self._filled + (carry - 4 if carry >= 4 else carry)

    def _check(self, size: int) -> int:
        if size <= 0 or size > self._max:
            self._prefix.clear()
            self._carry.clear()
            self._frame = None
            self._filled = 0
            raise FrameSizeError(f"frame size {size} outside 1..{self._max}")
        return size

    def get_buffer(self) -> memoryview:
        """Where the next bytes read go: more of a large frame being gathered, else the
        scratch buffer (never empty)."""
        scratch = self._scratch
        if scratch is None:
            scratch = self._scratch = bytearray(SCRATCH_BYTES)
        frame = self._frame
        if frame is not None:
            self._direct = True
            # A read at a time as large as the scratch buffer: one callback of the event
            # loop never copies megabytes while small requests wait behind it.
            return memoryview(frame)[self._filled : self._filled + len(scratch)]
        self._direct = False
        return memoryview(scratch)

    def buffer_updated(self, nbytes: int) -> list[Frame]:
        """`nbytes` were read into the last buffer handed out: every frame completed."""
        if self._direct:
            frame = self._frame
            assert frame is not None
            self._filled += nbytes
            if self._filled < len(frame):
                return []
            self._frame = None
            self._filled = 0
            return [frame]
        scratch = self._scratch
        assert scratch is not None
        if self._carry:
            self._carry += memoryview(scratch)[:nbytes]
            data, self._carry = self._carry, bytearray()
            return self._split(data, len(data), len(scratch))
        return self._split(scratch, nbytes, len(scratch))

    def _split(self, data: bytearray, end: int, scratch_size: int) -> list[Frame]:
        """The frames in `data[:end]`; what follows them is carried, or becomes the start
        of a frame too large to be carried."""
        frames: list[Frame] = []
        pos = 0
        with memoryview(data) as view:
            while end - pos >= 4:
                (size,) = _SIZE.unpack_from(data, pos)
                self._check(size)
                if end - pos - 4 >= size:
                    # Copied out: the buffer takes the next read. Writable, so its record
                    # batches can be stamped in place.
                    frames.append(bytearray(view[pos + 4 : pos + 4 + size]))
                    pos += 4 + size
                    continue
                if 4 + size > scratch_size:
                    # Too large to carry: its own buffer, the rest read straight into it.
                    frame = self._frame = bytearray(size)
                    self._filled = end - pos - 4
                    frame[: self._filled] = view[pos + 4 : end]
                    pos = end
                break
            if pos < end:
                self._carry = bytearray(view[pos:end])
        return frames

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
