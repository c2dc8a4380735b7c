"""Kafka record batch v2 (magic 2): header view, validation, offset assignment, builders.

Pure bytes in, bytes out: nothing here does I/O. The produce/fetch hot path only ever
touches the 61-byte batch header and the CRC (`validate_produce_records`,
`assign_offsets`, `iter_batches`); decoding individual records (`decode_batch`) is for
coordinator log replay, ListOffsets-by-timestamp and tests.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import NamedTuple

import cramjam
from crc32c import crc32c

from .errors import ErrorCode
from .limits import INT32_MAX

# --- layout ---------------------------------------------------------------------------

HEADER = struct.Struct(">qiibIhiqqqhii")
HEADER_SIZE = HEADER.size  # 61
LOG_OVERHEAD = 12  # BaseOffset + Length: the part of a batch not counted by Length
MIN_LENGTH = HEADER_SIZE - LOG_OVERHEAD  # smallest legal Length field (49)
MAGIC_OFFSET = 16
CRC_OFFSET = 17
ATTRIBUTES_OFFSET = 21  # the CRC covers [ATTRIBUTES_OFFSET, end of batch)
PARTITION_LEADER_EPOCH_OFFSET = 12
MAX_TIMESTAMP_OFFSET = 35
CURRENT_MAGIC = 2

COMPRESSION_MASK = 0x07
TIMESTAMP_TYPE_BIT = 0x08
TRANSACTIONAL_BIT = 0x10
CONTROL_BIT = 0x20
DELETE_HORIZON_BIT = 0x40

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
NO_TIMESTAMP = -1
NO_PARTITION_LEADER_EPOCH = -1

_I64 = struct.Struct(">q")
_I32 = struct.Struct(">i")
_U32 = struct.Struct(">I")
_I16 = struct.Struct(">h")


class Compression(IntEnum):
    NONE = 0
    GZIP = 1
    SNAPPY = 2
    LZ4 = 3
    ZSTD = 4


_CODECS = frozenset(int(c) for c in Compression)


class TimestampType(IntEnum):
    CREATE_TIME = 0
    LOG_APPEND_TIME = 1


class ControlType(IntEnum):
    ABORT = 0
    COMMIT = 1


# --- errors ---------------------------------------------------------------------------


class RecordBatchError(ValueError):
    """A batch rejected on produce; `error_code` is the Kafka error code to answer with."""

    error_code: int = ErrorCode.CORRUPT_MESSAGE


class CorruptRecordError(RecordBatchError):
    """CORRUPT_MESSAGE: bad CRC, or length/size fields that do not fit the buffer."""

    error_code = ErrorCode.CORRUPT_MESSAGE


class InvalidRecordError(RecordBatchError):
    """INVALID_RECORD: well-formed bytes that violate the batch rules."""

    error_code = ErrorCode.INVALID_RECORD


class MessageTooLargeError(RecordBatchError):
    """MESSAGE_TOO_LARGE: the batch exceeds the topic's max.message.bytes."""

    error_code = ErrorCode.MESSAGE_TOO_LARGE


# --- header view ----------------------------------------------------------------------


class BatchHeader(NamedTuple):
    base_offset: int
    length: int
    partition_leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records_count: int

    @classmethod
    def parse(cls, buf: bytes | bytearray | memoryview, pos: int = 0) -> BatchHeader:
        """One struct.unpack_from; the caller guarantees HEADER_SIZE bytes at `pos`."""
        return cls._make(HEADER.unpack_from(buf, pos))

    @property
    def size(self) -> int:
        """Total bytes of the batch on the wire and on disk."""
        return self.length + LOG_OVERHEAD

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.base_offset + self.last_offset_delta + 1

    @property
    def compression(self) -> Compression:
        codec = self.attributes & COMPRESSION_MASK
        if codec not in _CODECS:
            raise InvalidRecordError(f"unknown compression codec {codec}")
        return Compression(codec)

    @property
    def timestamp_type(self) -> TimestampType:
        return TimestampType.LOG_APPEND_TIME if self.attributes & TIMESTAMP_TYPE_BIT else TimestampType.CREATE_TIME

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & TRANSACTIONAL_BIT)

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & CONTROL_BIT)

    @property
    def has_delete_horizon(self) -> bool:
        return bool(self.attributes & DELETE_HORIZON_BIT)

    @property
    def is_idempotent(self) -> bool:
        return self.producer_id >= 0

    @property
    def last_sequence(self) -> int:
        """Sequence of the last record; sequences wrap at INT32_MAX like Kafka's."""
        if self.base_sequence == NO_SEQUENCE:
            return NO_SEQUENCE
        return increment_sequence(self.base_sequence, self.last_offset_delta)


def increment_sequence(sequence: int, increment: int) -> int:
    if sequence > INT32_MAX - increment:
        return increment - (INT32_MAX - sequence) - 1
    return sequence + increment


def batch_crc(buf: bytes | bytearray | memoryview, pos: int, size: int) -> int:
    return int(crc32c(memoryview(buf)[pos + ATTRIBUTES_OFFSET : pos + size]))


def iter_batches(
    buf: bytes | bytearray | memoryview, start: int = 0, *, strict: bool = False
) -> Iterator[tuple[int, BatchHeader]]:
    """Yield (position, header) of each complete batch in `buf`, headers only.

    A torn tail (an incomplete header or a batch running past the end) ends the
    iteration; with strict=True it raises CorruptRecordError instead, so callers can
    tell "ran out" from "ended cleanly". CRCs are not checked here.
    """
    end = len(buf)
    pos = start
    while pos < end:
        if end - pos < HEADER_SIZE:
            if strict:
                raise CorruptRecordError(f"torn batch header at position {pos}")
            return
        header = BatchHeader.parse(buf, pos)
        if header.length < MIN_LENGTH or pos + header.size > end:
            if strict:
                raise CorruptRecordError(f"batch at position {pos} has bad length {header.length}")
            return
        yield pos, header
        pos += header.size


def valid_prefix_length(buf: bytes | bytearray | memoryview) -> int:
    """Byte length of the leading run of complete batches (no CRC check)."""
    end = 0
    for pos, header in iter_batches(buf):
        end = pos + header.size
    return end


# --- validation -----------------------------------------------------------------------


def validate_batch(
    buf: bytes | bytearray | memoryview,
    pos: int = 0,
    *,
    max_message_bytes: int | None = None,
    allow_control: bool = False,
    check_crc: bool = True,
) -> BatchHeader:
    """Validate the batch at `pos` from its header and CRC only (records are not decoded)."""
    available = len(buf) - pos
    if available < HEADER_SIZE:
        if available > MAGIC_OFFSET and buf[pos + MAGIC_OFFSET] != CURRENT_MAGIC:
            raise InvalidRecordError(f"unsupported magic {buf[pos + MAGIC_OFFSET]}")
        raise CorruptRecordError(f"record batch too short: {available} bytes")
    header = BatchHeader.parse(buf, pos)
    if header.magic != CURRENT_MAGIC:
        raise InvalidRecordError(f"unsupported magic {header.magic}")
    if header.length < MIN_LENGTH or header.size > available:
        raise CorruptRecordError(f"batch length {header.length} does not match {available} available bytes")
    if max_message_bytes is not None and header.size > max_message_bytes:
        raise MessageTooLargeError(f"batch of {header.size} bytes exceeds max.message.bytes {max_message_bytes}")
    if check_crc and batch_crc(buf, pos, header.size) != header.crc:
        raise CorruptRecordError("record batch CRC mismatch")
    if header.attributes & COMPRESSION_MASK not in _CODECS:
        # Ids 5-7 name no codec: refused here, so no stored batch fails to decompress later.
        raise InvalidRecordError(f"unknown compression codec {header.attributes & COMPRESSION_MASK}")
    if header.records_count <= 0:
        raise InvalidRecordError(f"record batch has {header.records_count} records")
    if header.last_offset_delta + 1 != header.records_count:
        raise InvalidRecordError(
            f"LastOffsetDelta {header.last_offset_delta} does not match RecordsCount {header.records_count}"
        )
    if header.is_control and not allow_control:
        raise InvalidRecordError("control batches may only be written by the coordinators")
    if header.producer_id >= 0 and header.base_sequence < 0 and not header.is_control:
        raise InvalidRecordError("idempotent batch without a base sequence")
    return header


def validate_produce_records(
    records: bytes | bytearray | memoryview,
    *,
    max_message_bytes: int | None = None,
    allow_control: bool = False,
) -> BatchHeader:
    """Validate one partition's records of a produce request (v3+: exactly one batch)."""
    header = validate_batch(records, 0, max_message_bytes=max_message_bytes, allow_control=allow_control)
    if header.size != len(records):
        raise InvalidRecordError("produce v3+ requires exactly one record batch per partition")
    return header


# --- offset assignment ----------------------------------------------------------------


def assign_offsets(
    buf: bytearray | memoryview,
    base_offset: int,
    *,
    pos: int = 0,
    partition_leader_epoch: int | None = None,
    log_append_time: int | None = None,
) -> None:
    """Rewrite the header in place: BaseOffset and PartitionLeaderEpoch are outside the
    CRC, so the CRC is only recomputed when LogAppendTime changes attributes/MaxTimestamp."""
    _I64.pack_into(buf, pos, base_offset)
    if partition_leader_epoch is not None:
        _I32.pack_into(buf, pos + PARTITION_LEADER_EPOCH_OFFSET, partition_leader_epoch)
    if log_append_time is not None:
        attributes = _I16.unpack_from(buf, pos + ATTRIBUTES_OFFSET)[0] | TIMESTAMP_TYPE_BIT
        _I16.pack_into(buf, pos + ATTRIBUTES_OFFSET, attributes)
        _I64.pack_into(buf, pos + MAX_TIMESTAMP_OFFSET, log_append_time)
        size = _I32.unpack_from(buf, pos + 8)[0] + LOG_OVERHEAD
        _U32.pack_into(buf, pos + CRC_OFFSET, batch_crc(buf, pos, size))


# --- varints --------------------------------------------------------------------------


def encode_varint(value: int, out: bytearray) -> None:
    """Zigzag varint/varlong (Kafka uses the same encoding for both)."""
    v = (value << 1) ^ (value >> 63)
    v &= 0xFFFFFFFFFFFFFFFF
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


def decode_varint(buf: bytes | bytearray | memoryview, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= len(buf):
            raise CorruptRecordError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
        if shift > 63:
            raise CorruptRecordError("varint too long")
    return (result >> 1) ^ -(result & 1), pos


# --- compression ----------------------------------------------------------------------

# Java clients frame snappy with xerial's SnappyOutputStream; librdkafka also accepts raw.
_XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = _XERIAL_MAGIC + struct.pack(">ii", 1, 1)
_XERIAL_BLOCK = 32 * 1024


def compress(codec: Compression, data: bytes) -> bytes:
    if codec == Compression.NONE:
        return data
    if codec == Compression.GZIP:
        return bytes(cramjam.gzip.compress(data))
    if codec == Compression.SNAPPY:
        out = bytearray(_XERIAL_HEADER)
        for i in range(0, max(len(data), 1), _XERIAL_BLOCK):
            block = bytes(cramjam.snappy.compress_raw(data[i : i + _XERIAL_BLOCK]))
            out += _I32.pack(len(block))
            out += block
        return bytes(out)
    if codec == Compression.LZ4:
        # Kafka's KafkaLZ4BlockInputStream wants independent blocks.
        compressor = cramjam.lz4.Compressor(content_checksum=False, block_linked=False)
        compressor.compress(data)
        return bytes(compressor.finish())
    if codec == Compression.ZSTD:
        return bytes(cramjam.zstd.compress(data))
    raise InvalidRecordError(f"unknown compression codec {codec}")


# A batch may claim any compression ratio: 8 KiB of zstd expands to 256 MiB of zeros. Every
# codec decompresses into a buffer of at most this size, so one small batch cannot take the
# broker's memory (Kafka streams records one at a time instead; the bound keeps that effect).
MAX_DECOMPRESSED_BYTES = 128 * 1024 * 1024


def decompress(codec: Compression, data: bytes | memoryview, limit: int = MAX_DECOMPRESSED_BYTES) -> bytes:
    """The records of a batch's payload, refused as corrupt past `limit` bytes."""
    if codec == Compression.NONE:
        return bytes(data)
    try:
        if codec == Compression.GZIP:
            return _decompress_bounded(cramjam.gzip.decompress_into, bytes(data), limit)
        if codec == Compression.SNAPPY:
            return _snappy_decompress(bytes(data), limit)
        if codec == Compression.LZ4:
            return _decompress_bounded(cramjam.lz4.decompress_into, bytes(data), limit)
        if codec == Compression.ZSTD:
            return _decompress_bounded(cramjam.zstd.decompress_into, bytes(data), limit)
    except cramjam.DecompressionError as exc:
        raise CorruptRecordError(
            f"cannot decompress {codec.name} records (corrupt, or over {limit} bytes decompressed): {exc}"
        ) from exc
    raise InvalidRecordError(f"unknown compression codec {codec}")


def _decompress_bounded(decompress_into: Callable[[bytes, mmap.mmap], int], data: bytes, limit: int) -> bytes:
    # An anonymous map costs only the pages written: the bound is not paid up front.
    with mmap.mmap(-1, max(limit, 1)) as out:
        n = decompress_into(data, out)  # raises DecompressionError when `out` is too small
        return out[:n]


def _snappy_decompress(data: bytes, limit: int) -> bytes:
    if data.startswith(_XERIAL_MAGIC):
        out = bytearray()
        pos = len(_XERIAL_HEADER)
        while pos < len(data):
            if len(data) - pos < 4:
                raise CorruptRecordError("xerial snappy block length runs past the batch")
            (n,) = _I32.unpack_from(data, pos)
            pos += 4
            if n < 0 or n > len(data) - pos:
                raise CorruptRecordError(f"xerial snappy block of {n} bytes runs past the batch")
            out += _snappy_raw(data[pos : pos + n], limit - len(out))
            pos += n
        return bytes(out)
    try:
        return _snappy_raw(data, limit)
    except cramjam.DecompressionError:
        return _decompress_bounded(cramjam.snappy.decompress_into, data, limit)  # snappy framing format


def _snappy_raw(block: bytes, limit: int) -> bytes:
    # A raw snappy block states its decompressed length first.
    if cramjam.snappy.decompress_raw_len(block) > limit:
        raise CorruptRecordError(f"snappy records over {limit} bytes decompressed")
    return bytes(cramjam.snappy.decompress_raw(block))


# --- records, builders, decoding ------------------------------------------------------


@dataclass(slots=True)
class Record:
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]] = field(default_factory=list)
    timestamp: int = 0
    offset: int = -1  # filled in by decode_batch


@dataclass(slots=True)
class DecodedBatch:
    header: BatchHeader
    records: list[Record]


def _zigzag_bytes(value: int) -> bytes:
    if 0 <= value < 64:
        return _SMALL_ZIGZAG[value]
    out = bytearray()
    encode_varint(value, out)
    return bytes(out)


# The one-byte varints of 0..63: lengths, deltas and counts of small records (coordinators').
_SMALL_ZIGZAG = [bytes([v << 1]) for v in range(64)]
_NULL = b"\x01"  # varint -1


def _encode_record(record: Record, offset_delta: int, timestamp_delta: int) -> bytes:
    z = _zigzag_bytes
    parts = [b"\x00", z(timestamp_delta), z(offset_delta)]  # attributes: unused in v2
    for blob in (record.key, record.value):
        if blob is None:
            parts.append(_NULL)
        else:
            parts += (z(len(blob)), blob)
    parts.append(z(len(record.headers)))
    for hkey, hvalue in record.headers:
        raw = hkey.encode()
        parts += (z(len(raw)), raw)
        if hvalue is None:
            parts.append(_NULL)
        else:
            parts += (z(len(hvalue)), hvalue)
    body = b"".join(parts)
    return z(len(body)) + body


def build_batch(
    records: Sequence[Record],
    *,
    base_offset: int = 0,
    producer_id: int = NO_PRODUCER_ID,
    producer_epoch: int = NO_PRODUCER_EPOCH,
    base_sequence: int = NO_SEQUENCE,
    transactional: bool = False,
    control: bool = False,
    compression: Compression = Compression.NONE,
    timestamp_type: TimestampType = TimestampType.CREATE_TIME,
    partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
) -> bytes:
    """Encode `records` as one v2 batch (off the hot path: tests and coordinators)."""
    if not records:
        raise ValueError("a record batch needs at least one record")
    base_ts = records[0].timestamp
    max_ts = max(r.timestamp for r in records)
    body = b"".join(_encode_record(r, i, r.timestamp - base_ts) for i, r in enumerate(records))
    body = compress(compression, body)
    attributes = int(compression)
    if timestamp_type == TimestampType.LOG_APPEND_TIME:
        attributes |= TIMESTAMP_TYPE_BIT
    if transactional:
        attributes |= TRANSACTIONAL_BIT
    if control:
        attributes |= CONTROL_BIT
    size = HEADER_SIZE + len(body)
    buf = bytearray(size)
    HEADER.pack_into(
        buf,
        0,
        base_offset,
        size - LOG_OVERHEAD,
        partition_leader_epoch,
        CURRENT_MAGIC,
        0,
        attributes,
        len(records) - 1,
        base_ts,
        max_ts,
        producer_id,
        producer_epoch,
        base_sequence,
        len(records),
    )
    buf[HEADER_SIZE:] = body
    _U32.pack_into(buf, CRC_OFFSET, batch_crc(buf, 0, size))
    return bytes(buf)


def build_control_batch(
    control_type: ControlType,
    *,
    producer_id: int,
    producer_epoch: int,
    coordinator_epoch: int,
    timestamp: int,
    base_offset: int = 0,
    partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
) -> bytes:
    """A transaction marker: one record, key = (version 0, type), value = (version 0, coordinator epoch)."""
    key = struct.pack(">hh", 0, int(control_type))
    value = struct.pack(">hi", 0, coordinator_epoch)
    return build_batch(
        [Record(key=key, value=value, timestamp=timestamp)],
        base_offset=base_offset,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=NO_SEQUENCE,
        transactional=True,
        control=True,
        partition_leader_epoch=partition_leader_epoch,
    )


@dataclass(frozen=True, slots=True)
class ControlRecord:
    control_type: ControlType
    coordinator_epoch: int


def parse_control_record(record: Record) -> ControlRecord:
    if record.key is None or len(record.key) < 4:
        raise CorruptRecordError("control record without a valid key")
    _version, ctype = struct.unpack_from(">hh", record.key)
    epoch = -1
    if record.value is not None and len(record.value) >= 6:
        _v, epoch = struct.unpack_from(">hi", record.value)
    if ctype not in _CONTROL_TYPES:
        raise CorruptRecordError(f"control record of unknown type {ctype}")
    return ControlRecord(ControlType(ctype), epoch)


_CONTROL_TYPES = frozenset(int(t) for t in ControlType)


def decode_batch(buf: bytes | bytearray | memoryview, pos: int = 0) -> DecodedBatch:
    """Decode every record of the batch at `pos` (decompressing); never on the hot path."""
    header = validate_batch(buf, pos, allow_control=True)
    payload = decompress(header.compression, memoryview(buf)[pos + HEADER_SIZE : pos + header.size])
    log_append = header.timestamp_type == TimestampType.LOG_APPEND_TIME
    records: list[Record] = []
    p = 0
    for _ in range(header.records_count):
        length, p = decode_varint(payload, p)
        end = p + length
        if length < 0 or end > len(payload):
            raise CorruptRecordError("record length runs past the batch")
        p += 1  # record attributes
        ts_delta, p = decode_varint(payload, p)
        off_delta, p = decode_varint(payload, p)
        key, p = _read_blob(payload, p)
        value, p = _read_blob(payload, p)
        nheaders, p = decode_varint(payload, p)
        headers: list[tuple[str, bytes | None]] = []
        for _h in range(nheaders):
            hkey, p = _read_blob(payload, p)
            hvalue, p = _read_blob(payload, p)
            # Kafka's Utils.utf8 decodes header keys leniently (malformed bytes become U+FFFD).
            headers.append(((hkey or b"").decode(errors="replace"), hvalue))
        if p != end:
            raise CorruptRecordError("record length does not match its fields")
        timestamp = header.max_timestamp if log_append else header.base_timestamp + ts_delta
        records.append(Record(key, value, headers, timestamp, header.base_offset + off_delta))
    return DecodedBatch(header, records)


class RecordFields(NamedTuple):
    """What per-record validation needs of a record (Kafka's LogValidator.validateRecord)."""

    offset: int  # as the producer numbered it: the batch's base offset + the offset delta
    timestamp: int
    has_key: bool
    key_size: int  # 0 for a null key or value, as Kafka's DefaultRecord.toString counts them
    value_size: int


def iter_record_fields(buf: bytes | bytearray | memoryview, header: BatchHeader, pos: int = 0) -> Iterator[RecordFields]:
    """The records of the (already validated) batch at `pos`, decompressed, without copying
    keys, values or headers. Only for batches that need per-record checks: the hot path
    stays header-only."""
    payload = decompress(header.compression, memoryview(buf)[pos + HEADER_SIZE : pos + header.size])
    log_append = header.timestamp_type == TimestampType.LOG_APPEND_TIME
    p = 0
    # A malformed record in a batch whose CRC holds is INVALID_RECORD, as Kafka's
    # DefaultRecord.readFrom reports it (InvalidRecordException).
    for _ in range(header.records_count):
        try:
            length, p = decode_varint(payload, p)
            end = p + length
            if length < 0 or end > len(payload):
                raise InvalidRecordError("record length runs past the batch")
            p += 1  # record attributes
            ts_delta, p = decode_varint(payload, p)
            off_delta, p = decode_varint(payload, p)
            key_length, p = decode_varint(payload, p)
            value_length, p = decode_varint(payload, p + max(key_length, 0))
        except CorruptRecordError as exc:
            raise InvalidRecordError(f"invalid record structure: {exc}") from exc
        if p + max(value_length, 0) > end:
            raise InvalidRecordError("record fields run past the record")
        timestamp = header.max_timestamp if log_append else header.base_timestamp + ts_delta
        yield RecordFields(header.base_offset + off_delta, timestamp, key_length >= 0, max(key_length, 0),
                           max(value_length, 0))
        p = end
    if p != len(payload):
        raise InvalidRecordError("records still remain after the last one the batch declares")


def decode_batches(buf: bytes | bytearray | memoryview) -> list[DecodedBatch]:
    return [decode_batch(buf, pos) for pos, _ in iter_batches(buf, strict=True)]


def _read_blob(buf: bytes, pos: int) -> tuple[bytes | None, int]:
    n, pos = decode_varint(buf, pos)
    if n < 0:
        return None, pos
    if pos + n > len(buf):
        raise CorruptRecordError("record field runs past the batch")
    return buf[pos : pos + n], pos + n
