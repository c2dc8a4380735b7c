"""Record sets pass through the codec without being copied, and still encode byte-exactly."""

from __future__ import annotations

import struct

from protocol.codec import ZERO_COPY_MIN_BYTES, Reader, Writer
from protocol.frames import FrameReader
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
