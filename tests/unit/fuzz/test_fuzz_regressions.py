"""Inputs the fuzz targets (fuzz/) found failing, kept as regression tests: each literal
is the input as the fuzzer wrote it, run through the target's invariant, next to a direct
test of the fixed behaviour."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from fuzz import record_batches, segments
from protocol import record_batch as rb
from storage.log_loader import load_segments
from storage.segment import LOG_SUFFIX, segment_name
from storage.topic_config import TopicConfig

# A zstd batch whose record header key is not UTF-8 (the target stamps the CRC).
HEADER_KEY_NOT_UTF8 = (
    b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00g\xff\xff\xff\xff\x02\x986\xec\xb4\x00\x04'
    b'\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x03\xe8\x00\x00\x00\x00\x00\x00\x03\xed\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x03(\xb5/\xfd Mm\x01\x00d'
    b'\x02*\xfe\xff\xff\x05key\nvalue\x04\x02h\x022\x82n\x01\\'
    b'\x00\n\x02\x01Pv\x00\x0e\x01\x04\x02\x00k\x01\x00\x01\x00)\x81\x13'
)
# A control batch whose key names control type 3073.
UNKNOWN_CONTROL_TYPE = (
    b'\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00B\xff\xff\xff\xff\x02\x98R\xcc\xb0\x000'
    b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x00'
    b'\x00\x00\x00\x05\x00\x01\xff\xff\xff\xff\x00\x00\x00\x01 \x00\x00\x00\x08\x00\x00\x0c\x01\x0c'
    b'\x00\x00\x00\x00\x00\x03\x00'
)
# A batch with compression id 6 in its attributes.
UNKNOWN_CODEC = (
    b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00q\xff\xff\xff\xff\x02\xe8\x90B\xce\x00\x06'
    b'\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x03\xe8 \x00\x00\x00\x00\x00\x03\xed\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x03\x82SNAPPY\x00\x00\x00'
    b'\x00\x01\x00\x00\x00\x01\x00\x00\x00,Mp*\x00\x00\x00\x06key\nval'
    b'ue\x04\x00\x01\x00\x00\x00,Mp*\x00\x00\x01Pv\x9a\x01\x00 \x00\x0e\x00'
    b'\x01\x04\x02k\x01\x00'
)
# A xerial-framed snappy payload cut inside a block length.
XERIAL_TRUNCATED = (
    b'\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00B\xff\xff\xff\xff\x02\xe8\x90B\xce\x00\x02'
    b'\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x03\xe8\x00\x00\x00\x00\x00\x00\x03\xed\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x03\x82SNAPPY\x00\x00\x00'
    b'\x00\x01\x00\x00\x00\x01\x00'
)


@pytest.mark.parametrize("data", [HEADER_KEY_NOT_UTF8, UNKNOWN_CONTROL_TYPE, UNKNOWN_CODEC, XERIAL_TRUNCATED],
                         ids=["header-key-not-utf8", "unknown-control-type", "unknown-codec", "xerial-truncated"])
def test_record_batch_inputs_found_by_fuzzing(data: bytes) -> None:
    record_batches.check(data)


def _restamp(buf: bytearray) -> bytes:
    struct.pack_into(">I", buf, rb.CRC_OFFSET, rb.batch_crc(buf, 0, len(buf)))
    return bytes(buf)


def test_header_key_not_utf8_decodes_leniently_as_kafka() -> None:
    raw = bytearray(rb.build_batch([rb.Record(b"k", b"v", [("h", b"1")], 5)]))
    at = raw.index(b"\x02h\x021")
    raw[at + 1] = 0x82
    decoded = rb.decode_batch(_restamp(raw))
    assert decoded.records[0].headers == [("\ufffd", b"1")]


def test_unknown_control_type_is_corrupt() -> None:
    raw = bytearray(rb.build_control_batch(rb.ControlType.COMMIT, producer_id=1, producer_epoch=0,
                                           coordinator_epoch=0, timestamp=0))
    decoded = rb.decode_batch(raw)
    key = bytearray(decoded.records[0].key or b"")
    struct.pack_into(">h", key, 2, 3073)
    with pytest.raises(rb.CorruptRecordError, match="unknown type 3073"):
        rb.parse_control_record(rb.Record(bytes(key), decoded.records[0].value))


def test_unknown_codec_is_an_invalid_record() -> None:
    raw = bytearray(rb.build_batch([rb.Record(b"k", b"v", [], 5)]))
    raw[rb.ATTRIBUTES_OFFSET + 1] |= 6
    batch = _restamp(raw)
    with pytest.raises(rb.InvalidRecordError, match="unknown compression codec 6"):
        rb.validate_produce_records(batch)
    with pytest.raises(rb.InvalidRecordError):
        _ = rb.BatchHeader.parse(batch).compression


@pytest.mark.parametrize("tail", [b"\x00\x00\x01", struct.pack(">i", 9) + b"abc", struct.pack(">i", -1)])
def test_truncated_xerial_snappy_is_corrupt(tail: bytes) -> None:
    payload = rb._XERIAL_HEADER + tail
    with pytest.raises(rb.CorruptRecordError, match="xerial"):
        rb.decompress(rb.Compression.SNAPPY, payload)


def _segment_dir(tmp_path: Path, log: bytes) -> str:
    directory = tmp_path / "p"
    directory.mkdir()
    (directory / (segment_name(0) + LOG_SUFFIX)).write_bytes(log)
    return str(directory)


@pytest.mark.parametrize("clean", [True, False], ids=["clean", "recovery"])
def test_batch_beyond_the_segments_offset_range_is_cut_off(tmp_path: Path, clean: bool) -> None:
    """A valid batch 2^32 offsets past its segment's base cannot be indexed (32-bit
    deltas); opening it used to fail with struct.error when rebuilding the time index."""
    good = rb.build_batch([rb.Record(b"a", b"b", [], 5)])
    far = rb.build_batch([rb.Record(b"c", b"d", [], 9)], base_offset=1 << 32)
    directory = _segment_dir(tmp_path, good + far)
    loaded, report = load_segments(directory, TopicConfig(), clean=clean, now_ms=0, log_start_offset=0)
    [segment] = loaded
    assert segment.next_offset == 1
    assert segment.size == len(good)
    assert report.truncated_bytes == len(far)
    assert os.path.getsize(os.path.join(directory, segment_name(0) + LOG_SUFFIX)) == len(good)
    segment.close()


def test_segment_input_found_by_fuzzing() -> None:
    far = rb.build_batch([rb.Record(b"c", b"d", [], 9)], base_offset=1 << 32)
    segments.check(segments.join(segments.CLEAN, [b"", b"", b""], far))
