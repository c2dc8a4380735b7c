"""Record sets pass through the codec without being copied, and still encode byte-exactly."""

from __future__ import annotations

import struct

from protocol.codec import ZERO_COPY_MIN_BYTES, Reader, Writer
from protocol.frames import SCRATCH_BYTES, Frame, FrameReader
from protocol.messages.fetch_response import FetchableTopicResponse, FetchResponse, PartitionData
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData


def fetch_response(records: bytes) -> FetchResponse:
    return FetchResponse(
        responses=[FetchableTopicResponse(topic="t", partitions=[PartitionData(partition_index=0, records=records)])]
    )


def test_large_records_are_attached_not_copied() -> None:
    records = bytes(range(256)) * (ZERO_COPY_MIN_BYTES // 64)
    for version in (4, 11, 12, 16):
        w = Writer()
        fetch_response(records).write(w, version)
        assert any(part is records for part in w.buffers())
        assert w.size() == len(w.getvalue())
        decoded = FetchResponse.decode(w.getvalue(), version)
        assert bytes(decoded.responses[0].partitions[0].records or b"") == records


def test_small_records_are_inlined() -> None:
    w = Writer()
    fetch_response(b"abc").write(w, 12)
    assert len(w.buffers()) == 1


def test_decoded_records_are_views_of_the_frame() -> None:
    records = b"r" * 100_000
    request = ProduceRequest(
        acks=-1, timeout_ms=1, topic_data=[TopicProduceData(name="t", partition_data=[PartitionProduceData(0, records)])]
    )
    body = request.encode(9)
    frame = bytearray(body)
    decoded = ProduceRequest.read(Reader(frame), 9)
    view = decoded.topic_data[0].partition_data[0].records
    assert isinstance(view, memoryview)
    assert view == records
    # A view, not a copy: the frame's bytes show through.
    assert view.obj is frame
    at = bytes(frame).index(records)
    frame[at] = ord("x")
    assert view[0] == ord("x")


def test_frames_are_copied_at_most_once() -> None:
    small, large = b"s" * 10, b"L" * 300_000
    stream = struct.pack(">i", len(small)) + small + struct.pack(">i", len(large)) + large
    reader = FrameReader()
    first = reader.feed(stream[:100_000])
    assert [type(f) for f in first] == [memoryview]  # whole in one chunk: a view of it
    rest = reader.feed(stream[100_000:])
    assert [type(f) for f in rest] == [bytearray]  # gathered once, writable for in-place stamping
    assert bytes(first[0]) == small and rest[0] == large


def _read(reader: FrameReader, data: bytes) -> tuple[list[Frame], list[int]]:
    """`data` read as a transport reads into a BufferedProtocol: the frames, and the size
    of each buffer handed out."""
    frames: list[Frame] = []
    sizes: list[int] = []
    while data:
        buffer = reader.get_buffer()
        sizes.append(len(buffer))
        n = min(len(buffer), len(data))
        buffer[:n] = data[:n]
        data = data[n:]
        frames.extend(reader.buffer_updated(n))
    return frames, sizes


def test_a_large_frame_is_read_into_its_own_buffer_a_scratch_at_a_time() -> None:
    small, large = b"s" * 10, b"L" * (3 * SCRATCH_BYTES)
    stream = struct.pack(">i", len(small)) + small + struct.pack(">i", len(large)) + large
    frames, sizes = _read(FrameReader(), stream)
    assert frames == [bytearray(small), bytearray(large)]
    assert all(type(f) is bytearray for f in frames)  # writable: stamped in place
    assert max(sizes) == SCRATCH_BYTES  # no read larger than the scratch buffer


def test_readers_of_one_thread_share_one_scratch_buffer() -> None:
    scratch = bytearray(SCRATCH_BYTES)
    first, second = FrameReader(scratch=scratch), FrameReader(scratch=scratch)
    a = struct.pack(">i", 6) + b"first!"
    b = struct.pack(">i", 7) + b"second!"
    got_a, _ = _read(first, a[:5])  # a frame's start stays with its reader, not in the scratch
    got_b, _ = _read(second, b[:3])
    got_a += _read(first, a[5:])[0]
    got_b += _read(second, b[3:])[0]
    assert got_a == [bytearray(b"first!")] and got_b == [bytearray(b"second!")]
    assert first.buffered == second.buffered == 0
