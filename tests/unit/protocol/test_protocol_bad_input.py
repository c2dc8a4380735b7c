"""Frames, truncated and lying input, unknown tagged fields and unsupported versions."""

from __future__ import annotations

import contextlib
import itertools
import struct
import time
import tracemalloc
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import (
    DecodeError,
    InvalidLengthError,
    InvalidValueError,
    RawTaggedField,
    Reader,
    TruncatedError,
    UnsupportedVersionError,
)
from protocol.frames import FrameReader, FrameSizeError, frame
from protocol.message import Message
from protocol.messages import (
    API_SPECS,
    ApiVersionsRequest,
    FetchRequest,
    MetadataRequest,
    MetadataResponse,
    ProduceRequest,
)
from tests.unit.protocol.protocol_model import Target, all_targets, message_strategy

TARGETS = all_targets()

# -- frames ---------------------------------------------------------------------------------

payloads = st.lists(st.binary(min_size=1, max_size=40), min_size=1, max_size=6)


def _feed_all(reader: FrameReader, chunks: list[bytes]) -> list[bytes]:
    out: list[bytes] = []
    for c in chunks:
        out += reader.feed(c)
    return out


@given(payloads)
def test_frames_fed_byte_by_byte(frames: list[bytes]) -> None:
    stream = b"".join(frame(p) for p in frames)
    reader = FrameReader(1024)
    assert _feed_all(reader, [stream[i : i + 1] for i in range(len(stream))]) == frames
    assert reader.buffered == 0


@given(payloads, st.lists(st.integers(0, 300), max_size=10))
def test_frames_in_random_splits(frames: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(frame(p) for p in frames)
    points = sorted({min(c, len(stream)) for c in cuts} | {0, len(stream)})
    chunks = [stream[a:b] for a, b in itertools.pairwise(points)]
    reader = FrameReader(1024)
    assert _feed_all(reader, chunks) == frames
    assert reader.buffered == 0


@given(payloads, st.binary(min_size=1, max_size=3))
def test_trailing_partial_size_is_kept(frames: list[bytes], partial: bytes) -> None:
    reader = FrameReader(1024)
    stream = b"".join(frame(p) for p in frames)
    assert reader.feed(stream + partial) == frames
    assert reader.buffered == len(partial)


def test_trailing_partial_frame_completes_later() -> None:
    reader = FrameReader(1024)
    assert reader.feed(frame(b"one") + frame(b"two")[:5]) == [b"one"]
    assert reader.feed(b"") == []
    assert reader.feed(b"wo") == [b"two"]
    assert reader.buffered == 0


@pytest.mark.parametrize("size", [-1, -(2**31), 0, 1025, 2**31 - 1])
def test_bad_frame_sizes(size: int) -> None:
    reader = FrameReader(1024)
    with pytest.raises(FrameSizeError):
        reader.feed(struct.pack(">i", size))
    assert isinstance(FrameSizeError("x"), DecodeError)


def test_bad_size_after_good_frame_and_max_size_accepted() -> None:
    reader = FrameReader(4)
    assert reader.feed(frame(b"abcd")) == [b"abcd"]  # exactly the maximum
    with pytest.raises(FrameSizeError):
        reader.feed(struct.pack(">i", 5))
    # a huge size is rejected from its 4 bytes alone, without waiting for the body
    reader = FrameReader(1024)
    with pytest.raises(FrameSizeError):
        reader.feed(struct.pack(">i", 10**9)[:2])
        reader.feed(struct.pack(">i", 10**9)[2:])


# -- truncation -----------------------------------------------------------------------------


def _only_decode_errors(cls: type[Message], data: bytes, version: int) -> None:
    with contextlib.suppress(DecodeError):
        cls.decode(data, version)


@pytest.mark.parametrize("target", [pytest.param(t, id=t.id) for t in TARGETS])
@settings(max_examples=3)
@given(data=st.data())
def test_every_prefix_fails_cleanly(target: Target, data: st.DataObject) -> None:
    value = data.draw(message_strategy(target.cls, target.version))
    wire = value.encode(target.version)
    for i in range(len(wire)):
        _only_decode_errors(target.cls, wire[:i], target.version)


def test_truncation_raises_truncated_error() -> None:
    wire = MetadataRequest(topics=[]).encode(4)  # array count, then a bool
    with pytest.raises(TruncatedError):
        MetadataRequest.decode(wire[:-1], 4)
    with pytest.raises(TruncatedError):
        MetadataRequest.decode(b"", 4)


# -- lengths that claim more than is there ---------------------------------------------------


def _fails_fast(call: Callable[[], object], exc: type[Exception]) -> None:
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(exc):
            call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 0.5
    assert peak < 64 * 1024, f"allocated {peak} bytes before failing"


TEN = b"\x00" * 10


@pytest.mark.parametrize(
    ("name", "read"),
    [
        ("array", lambda r: r.array_length()),
        ("nullable string", lambda r: r.nullable_string()),
        ("blob", lambda r: r.blob()),
        ("compact array", lambda r: r.compact_array_length()),
        ("compact string", lambda r: r.compact_string()),
        ("compact blob", lambda r: r.compact_blob()),
        ("tagged field", lambda r: r.tagged_field_header()),
    ],
)
def test_primitive_lengths_beyond_the_buffer(name: str, read: Callable[[Reader], object]) -> None:
    if name.startswith("compact") or name == "tagged field":
        prefix = b"\x00" if name == "tagged field" else b""
        data = prefix + b"\xff\xff\xff\xff\x0f" + TEN  # uvarint 2**32-1
    elif name == "nullable string":
        data = b"\x7f\xff" + TEN  # int16 32767
    else:
        data = b"\x7f\xff\xff\xff" + TEN  # int32 2**31-1
    _fails_fast(lambda: read(Reader(data)), InvalidLengthError)


def test_negative_lengths() -> None:
    with pytest.raises(InvalidLengthError):
        Reader(b"\xff\xfe" + TEN).nullable_string()
    with pytest.raises(InvalidLengthError):
        Reader(b"\xff\xff\xff\xfe" + TEN).nullable_blob()
    with pytest.raises(InvalidLengthError):
        Reader(b"\xff\xff\xff\xfe" + TEN).array_length()
    with pytest.raises(InvalidValueError):
        Reader(b"\xff\xff").string()  # null in a non-nullable string
    with pytest.raises(InvalidValueError):
        Reader(b"\x80\x80\x80\x80\x80\x01").uvarint()  # longer than 5 bytes
    with pytest.raises(InvalidValueError):
        Reader(b"\x00\x02\xff\xfe").string()  # not UTF-8
    with pytest.raises(InvalidValueError):
        Reader(b"\x02").struct_presence()


def test_huge_array_counts_in_messages_fail_immediately() -> None:
    # Metadata v0: Topics array claiming 2**31-1 elements with 10 bytes left.
    _fails_fast(lambda: MetadataRequest.decode(b"\x7f\xff\xff\xff" + TEN, 0), InvalidLengthError)
    # Metadata v12 (flexible): compact array claiming 2**32-2 elements.
    _fails_fast(lambda: MetadataRequest.decode(b"\xff\xff\xff\xff\x0f" + TEN, 12), InvalidLengthError)
    # Produce v3: transactional id null, acks, timeout, topics claiming 2**31-1.
    body = b"\xff\xff" + b"\x00\x01" + b"\x00\x00\x03\xe8" + b"\x7f\xff\xff\xff" + TEN
    _fails_fast(lambda: ProduceRequest.decode(body, 3), InvalidLengthError)
    # Produce v3: a records blob claiming 2**31-1 bytes.
    body = (
        b"\xff\xff\x00\x01\x00\x00\x03\xe8"
        + b"\x00\x00\x00\x01"  # one topic
        + b"\x00\x01t"
        + b"\x00\x00\x00\x01"  # one partition
        + b"\x00\x00\x00\x00"
        + b"\x7f\xff\xff\xff"
        + TEN
    )
    _fails_fast(lambda: ProduceRequest.decode(body, 3), InvalidLengthError)
    # Metadata response v1: brokers array, then a host string claiming 32767 bytes.
    body = b"\x00\x00\x00\x01" + b"\x00\x00\x00\x01" + b"\x7f\xff" + TEN
    _fails_fast(lambda: MetadataResponse.decode(body, 1), InvalidLengthError)


# -- tagged fields --------------------------------------------------------------------------


def test_unknown_tagged_fields_are_skipped_and_preserved() -> None:
    # ApiVersions v3 request: ClientSoftwareName, ClientSoftwareVersion, then tags.
    wire = bytes.fromhex(
        "0261"  # "a"
        "0262"  # "b"
        "02"  # two tagged fields
        "05" "03" "010203"  # tag 5, 3 bytes
        "2a" "00"  # tag 42, empty
    )
    req = ApiVersionsRequest.decode(wire, 3)
    assert (req.client_software_name, req.client_software_version) == ("a", "b")
    assert req.unknown_tagged_fields == [RawTaggedField(5, b"\x01\x02\x03"), RawTaggedField(42, b"")]
    assert req.encode(3) == wire


def test_unknown_tags_merge_with_known_ones_in_tag_order() -> None:
    req = FetchRequest(
        cluster_id="c", unknown_tagged_fields=[RawTaggedField(7, b"\x01\x02"), RawTaggedField(9, b"")]
    )
    wire = req.encode(12)
    back = FetchRequest.decode(wire, 12)
    assert back.cluster_id == "c"
    assert back.unknown_tagged_fields == req.unknown_tagged_fields
    assert back.encode(12) == wire
    # the tag section: 3 fields, tag 0 (ClusterId "c") first, then 7 and 9
    assert wire.endswith(bytes.fromhex("03" "00" "02" "0263" "07" "02" "0102" "09" "00"))


def test_tagged_field_payload_overrunning_its_size_fails() -> None:
    # ApiVersions v3 request with a tag claiming 5 bytes and 2 present.
    with pytest.raises(InvalidLengthError):
        ApiVersionsRequest.decode(bytes.fromhex("0261" "0262" "01" "05" "05" "0102"), 3)


# -- versions -------------------------------------------------------------------------------


@pytest.mark.parametrize("api", [pytest.param(a, id=a.name) for a in API_SPECS.values()])
def test_versions_outside_the_range(api: object) -> None:
    for cls in (api.request, api.response):  # type: ignore[attr-defined]
        for v in (cls.MIN_VERSION - 1, cls.MAX_VERSION + 1, -1, 0x7FFF):
            if cls.MIN_VERSION <= v <= cls.MAX_VERSION:
                continue
            with pytest.raises(UnsupportedVersionError):
                cls.decode(b"\x00" * 64, v)
            with pytest.raises(UnsupportedVersionError):
                cls().encode(v)
