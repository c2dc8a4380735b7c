"""Fuzz target: the frame reader (protocol/frames.py).

The input is a byte stream cut into chunks at points the fuzzer chooses, read both ways: fed
chunk by chunk (`FrameReader.feed`) and read into the buffers the reader hands out, as an
asyncio BufferedProtocol is (`get_buffer`, `buffer_updated`; a small scratch buffer, so that
frames both fit in it and are read straight into their own). Invariants: only
the decode-error family escapes the reader; the frames returned across chunks are
exactly those of a plain reading of the whole stream, in order; a size outside
1..max is refused exactly where the plain reading meets it; what is left over is buffered.
"""

from __future__ import annotations

import itertools
import struct

from fuzz.harness import instrumented, main

with instrumented("protocol"):
    from protocol.frames import FrameReader, FrameSizeError, frame

MAX_FRAME = 4096  # small, so the fuzzer reaches the size limit too
SCRATCH = 64  # smaller than most frames of the stream, larger than some


def _reference(stream: bytes, max_frame: int) -> tuple[list[bytes], bool, int]:
    """(frames, whether a bad size is met, bytes left over) of the whole stream at once."""
    frames: list[bytes] = []
    pos = 0
    while len(stream) - pos >= 4:
        (size,) = struct.unpack_from(">i", stream, pos)
        if size <= 0 or size > max_frame:
            return frames, True, 0
        if len(stream) - pos - 4 < size:
            break
        frames.append(stream[pos + 4 : pos + 4 + size])
        pos += 4 + size
    return frames, False, len(stream) - pos


def check(data: bytes) -> None:
    if not data:
        return
    # The first byte says how many cut points follow (two bytes each); the rest is the stream.
    cuts_n = data[0] % 8
    cut_bytes, stream = data[1 : 1 + 2 * cuts_n], data[1 + 2 * cuts_n :]
    cuts = sorted({int.from_bytes(cut_bytes[i : i + 2], "big") % (len(stream) + 1)
                   for i in range(0, len(cut_bytes) - 1, 2)})
    bounds = [0, *cuts, len(stream)]
    expected, bad_size, left = _reference(stream, MAX_FRAME)
    _check_reading(stream, bounds, expected, bad_size, left, buffered=False)
    _check_reading(stream, bounds, expected, bad_size, left, buffered=True)


def _check_reading(
    stream: bytes, bounds: list[int], expected: list[bytes], bad_size: bool, left: int, *, buffered: bool
) -> None:
    scratch = bytearray(SCRATCH)
    reader = FrameReader(MAX_FRAME, scratch)
    got: list[bytes] = []
    failed = False
    for lo, hi in itertools.pairwise(bounds):
        try:
            if not buffered:
                got.extend(bytes(f) for f in reader.feed(stream[lo:hi]))
                continue
            while lo < hi:  # a read fills at most the buffer handed out
                buffer = reader.get_buffer()
                assert len(buffer) > 0, "an empty buffer handed out"
                n = min(len(buffer), hi - lo)
                buffer[:n] = stream[lo : lo + n]
                lo += n
                got.extend(bytes(f) for f in reader.buffer_updated(n))
                scratch[:] = b"\xaa" * SCRATCH  # shared: another reader's read goes there next
        except FrameSizeError:
            failed = True
            break
    assert failed == bad_size, f"bad size refused: {failed}, expected {bad_size}"
    assert got == expected[: len(got)], "frames differ from a plain reading of the stream"
    if not failed:
        assert len(got) == len(expected), "frames missing"
        # A frame being gathered counts its body only: its size prefix is consumed.
        held = left if left < 4 else left - 4
        assert reader.buffered == held, f"buffered {reader.buffered}, expected {held}"


def seeds() -> list[bytes]:
    frames = [frame(b"x"), frame(bytes(range(200))), frame(b"\0" * MAX_FRAME)]
    stream = b"".join(frames)
    return [
        b"\x00" + stream,
        b"\x03" + bytes([0, 3, 0, 9, 1, 2]) + stream,
        b"\x01" + bytes([0, 2]) + frame(b"abc") + struct.pack(">i", MAX_FRAME + 1),
        b"\x00" + struct.pack(">i", -1),
    ]


if __name__ == "__main__":
    main(check, seeds)
