"""Primitive encodings of the Kafka protocol: a bounds-checked reader and a buffer writer.

Every length read from the wire is checked against the bytes left before anything is
allocated, so a frame that claims more than it holds fails fast with a `DecodeError`.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

_I8 = struct.Struct(">b")
_I16 = struct.Struct(">h")
_U16 = struct.Struct(">H")
_I32 = struct.Struct(">i")
_U32 = struct.Struct(">I")
_I64 = struct.Struct(">q")
_F64 = struct.Struct(">d")

ZERO_UUID = uuid.UUID(int=0)

# Record batches are passed around as views of the buffer they arrived in, never copied.
RecordsData = bytes | bytearray | memoryview


class DecodeError(ValueError):
    """Bytes that are not a valid encoding of the message being read."""


class TruncatedError(DecodeError):
    """A field or length runs past the end of the available bytes."""


class InvalidLengthError(DecodeError):
    """A length prefix is negative where it may not be, or claims more than is there."""


class InvalidValueError(DecodeError):
    """A field's bytes decode to a value the protocol does not allow (bad UTF-8, null in a
    non-nullable field, varint overflow)."""


class UnsupportedVersionError(ValueError):
    """A message version outside the range the spec defines."""


class RawTaggedField:
    """A tagged field this code does not know, kept as bytes so it can be written back."""

    __slots__ = ("data", "tag")

    def __init__(self, tag: int, data: bytes) -> None:
        self.tag = tag
        self.data = data

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RawTaggedField) and (self.tag, self.data) == (other.tag, other.data)

    def __hash__(self) -> int:
        return hash((self.tag, self.data))

    def __repr__(self) -> str:
        return f"RawTaggedField({self.tag}, {self.data!r})"


class Reader:
    """Reads primitives from a buffer, never past `end`."""

    __slots__ = ("buf", "end", "pos")

    def __init__(self, buf: bytes | bytearray | memoryview, pos: int = 0, end: int | None = None) -> None:
        # A view, so that records can be handed out as slices without copying.
        self.buf = buf if isinstance(buf, memoryview) else memoryview(buf)
        self.pos = pos
        self.end = len(buf) if end is None else end

    def remaining(self) -> int:
        return self.end - self.pos

    def _advance(self, n: int) -> int:
        start = self.pos
        if n > self.end - start:
            raise TruncatedError(f"need {n} bytes at {start}, {self.end - start} left")
        self.pos = start + n
        return start

    def int8(self) -> int:
        return int(_I8.unpack_from(self.buf, self._advance(1))[0])

    def int16(self) -> int:
        return int(_I16.unpack_from(self.buf, self._advance(2))[0])

    def uint16(self) -> int:
        return int(_U16.unpack_from(self.buf, self._advance(2))[0])

    def int32(self) -> int:
        return int(_I32.unpack_from(self.buf, self._advance(4))[0])

    def uint32(self) -> int:
        return int(_U32.unpack_from(self.buf, self._advance(4))[0])

    def int64(self) -> int:
        return int(_I64.unpack_from(self.buf, self._advance(8))[0])

    def float64(self) -> float:
        return float(_F64.unpack_from(self.buf, self._advance(8))[0])

    def boolean(self) -> bool:
        return self.buf[self._advance(1)] != 0

    def uuid_value(self) -> uuid.UUID:
        start = self._advance(16)
        return uuid.UUID(bytes=bytes(self.buf[start : start + 16]))

    def uvarint(self) -> int:
        """Unsigned LEB128, at most 5 bytes (an unsigned 32-bit value)."""
        result = 0
        shift = 0
        buf = self.buf
        pos = self.pos
        end = self.end
        while True:
            if pos >= end:
                raise TruncatedError("varint runs past the end")
            b = buf[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                break
            shift += 7
            if shift >= 35:
                raise InvalidValueError("varint is longer than 5 bytes")
        self.pos = pos
        return result & 0xFFFFFFFF

    def _raw(self, n: int) -> bytes:
        start = self._advance(n)
        return bytes(self.buf[start : start + n])

    def _text(self, n: int) -> str:
        start = self._advance(n)
        try:
            return str(self.buf[start : start + n], "utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidValueError(f"string is not UTF-8: {exc}") from None

    def _checked_len(self, n: int, what: str) -> int:
        if n > self.end - self.pos:
            raise InvalidLengthError(f"{what} of {n} bytes, only {self.end - self.pos} left")
        return n

    # Strings: int16 length (-1 null) or compact uvarint length+1 (0 null).
    def nullable_string(self) -> str | None:
        n = self.int16()
        if n < 0:
            if n == -1:
                return None
            raise InvalidLengthError(f"string length {n}")
        return self._text(self._checked_len(n, "string"))

    def string(self) -> str:
        s = self.nullable_string()
        if s is None:
            raise InvalidValueError("null in a non-nullable string")
        return s

    def compact_nullable_string(self) -> str | None:
        n = self.uvarint() - 1
        if n < 0:
            return None
        return self._text(self._checked_len(n, "string"))

    def compact_string(self) -> str:
        s = self.compact_nullable_string()
        if s is None:
            raise InvalidValueError("null in a non-nullable string")
        return s

    # Bytes and records: int32 length (-1 null) or compact uvarint length+1 (0 null).
    def nullable_blob(self) -> bytes | None:
        n = self.int32()
        if n < 0:
            if n == -1:
                return None
            raise InvalidLengthError(f"bytes length {n}")
        return self._raw(self._checked_len(n, "bytes"))

    def blob(self) -> bytes:
        b = self.nullable_blob()
        if b is None:
            raise InvalidValueError("null in non-nullable bytes")
        return b

    def compact_nullable_blob(self) -> bytes | None:
        n = self.uvarint() - 1
        if n < 0:
            return None
        return self._raw(self._checked_len(n, "bytes"))

    def compact_blob(self) -> bytes:
        b = self.compact_nullable_blob()
        if b is None:
            raise InvalidValueError("null in non-nullable bytes")
        return b

    # Records: like bytes, but a view of the request's buffer rather than a copy.
    def nullable_records(self) -> memoryview | None:
        n = self.int32()
        if n < 0:
            if n == -1:
                return None
            raise InvalidLengthError(f"records length {n}")
        start = self._advance(self._checked_len(n, "records"))
        return self.buf[start : start + n]

    def compact_nullable_records(self) -> memoryview | None:
        n = self.uvarint() - 1
        if n < 0:
            return None
        start = self._advance(self._checked_len(n, "records"))
        return self.buf[start : start + n]

    # Arrays: the count is checked against the bytes left (every element takes at least one).
    def array_length(self) -> int:
        n = self.int32()
        if n < -1:
            raise InvalidLengthError(f"array length {n}")
        if n > self.end - self.pos:
            raise InvalidLengthError(f"array of {n} elements, only {self.end - self.pos} bytes left")
        return n

    def compact_array_length(self) -> int:
        n = self.uvarint() - 1
        if n > self.end - self.pos:
            raise InvalidLengthError(f"array of {n} elements, only {self.end - self.pos} bytes left")
        return n

    def read_array(self, n: int, read_one: Callable[[], T]) -> list[T]:
        return [read_one() for _ in range(n)]

    def struct_presence(self) -> bool:
        """The int8 marker of a nullable struct: -1 null, 1 present."""
        marker = self.int8()
        if marker == -1:
            return False
        if marker == 1:
            return True
        raise InvalidValueError(f"nullable struct marker {marker}")

    def tagged_field_header(self) -> tuple[int, Reader]:
        """Reads a tag and its size and returns a reader bounded to the field's payload."""
        tag = self.uvarint()
        size = self._checked_len(self.uvarint(), "tagged field")
        start = self.pos
        self.pos = start + size
        return tag, Reader(self.buf, start, start + size)

    def rest(self) -> bytes:
        start = self.pos
        self.pos = self.end
        return bytes(self.buf[start : self.end])


def _uvarint_bytes(value: int) -> bytes:
    out = bytearray()
    value &= 0xFFFFFFFF
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


# Below this, copying records into the response costs less than another buffer to write.
ZERO_COPY_MIN_BYTES = 16 * 1024

# Small values are by far the most common: cache their encodings.
_SMALL_UVARINTS = [_uvarint_bytes(i) for i in range(128)]


def uvarint_bytes(value: int) -> bytes:
    if 0 <= value < 128:
        return _SMALL_UVARINTS[value]
    return _uvarint_bytes(value)


class Writer:
    """Appends encoded primitives to one growing buffer.

    Large record sets are not copied in: the buffer so far and the records' own buffer are
    kept as separate parts (`buffers()`), to be written to the socket one after the other.
    """

    __slots__ = ("buf", "parts")

    def __init__(self) -> None:
        self.buf = bytearray()
        self.parts: list[RecordsData] = []

    def buffers(self) -> list[RecordsData]:
        return [*self.parts, self.buf] if self.parts else [self.buf]

    def size(self) -> int:
        return sum(len(p) for p in self.parts) + len(self.buf)

    def getvalue(self) -> bytes:
        return b"".join(self.buffers())

    def int8(self, v: int) -> None:
        self.buf += _I8.pack(v)

    def int16(self, v: int) -> None:
        self.buf += _I16.pack(v)

    def uint16(self, v: int) -> None:
        self.buf += _U16.pack(v)

    def int32(self, v: int) -> None:
        self.buf += _I32.pack(v)

    def uint32(self, v: int) -> None:
        self.buf += _U32.pack(v)

    def int64(self, v: int) -> None:
        self.buf += _I64.pack(v)

    def float64(self, v: float) -> None:
        self.buf += _F64.pack(v)

    def boolean(self, v: bool) -> None:
        self.buf.append(1 if v else 0)

    def uuid_value(self, v: uuid.UUID) -> None:
        self.buf += v.bytes

    def uvarint(self, v: int) -> None:
        self.buf += uvarint_bytes(v)

    def nullable_string(self, v: str | None) -> None:
        if v is None:
            self.buf += b"\xff\xff"
            return
        data = v.encode()
        self.buf += _I16.pack(len(data))
        self.buf += data

    def string(self, v: str | None) -> None:
        if v is None:
            raise ValueError("null in a non-nullable string")
        self.nullable_string(v)

    def compact_nullable_string(self, v: str | None) -> None:
        if v is None:
            self.buf.append(0)
            return
        data = v.encode()
        self.buf += uvarint_bytes(len(data) + 1)
        self.buf += data

    def compact_string(self, v: str | None) -> None:
        if v is None:
            raise ValueError("null in a non-nullable string")
        self.compact_nullable_string(v)

    def nullable_blob(self, v: bytes | bytearray | memoryview | None) -> None:
        if v is None:
            self.buf += b"\xff\xff\xff\xff"
            return
        self.buf += _I32.pack(len(v))
        self.buf += v

    def blob(self, v: bytes | bytearray | memoryview | None) -> None:
        if v is None:
            raise ValueError("null in non-nullable bytes")
        self.nullable_blob(v)

    def compact_nullable_blob(self, v: bytes | bytearray | memoryview | None) -> None:
        if v is None:
            self.buf.append(0)
            return
        self.buf += uvarint_bytes(len(v) + 1)
        self.buf += v

    def compact_blob(self, v: bytes | bytearray | memoryview | None) -> None:
        if v is None:
            raise ValueError("null in non-nullable bytes")
        self.compact_nullable_blob(v)

    def nullable_records(self, v: RecordsData | None) -> None:
        if v is None or len(v) < ZERO_COPY_MIN_BYTES:
            self.nullable_blob(v)
            return
        self.buf += _I32.pack(len(v))
        self._attach(v)

    def compact_nullable_records(self, v: RecordsData | None) -> None:
        if v is None or len(v) < ZERO_COPY_MIN_BYTES:
            self.compact_nullable_blob(v)
            return
        self.buf += uvarint_bytes(len(v) + 1)
        self._attach(v)

    def _attach(self, v: RecordsData) -> None:
        self.parts.append(self.buf)
        self.parts.append(v)
        self.buf = bytearray()

    def array_length(self, v: Sequence[object] | None) -> None:
        self.buf += _I32.pack(-1 if v is None else len(v))

    def compact_array_length(self, v: Sequence[object] | None) -> None:
        self.buf += uvarint_bytes(0 if v is None else len(v) + 1)

    def tagged_fields(self, fields: list[RawTaggedField]) -> None:
        """Writes a tagged-field section; `fields` must already be in ascending tag order."""
        self.buf += uvarint_bytes(len(fields))
        for f in fields:
            self.buf += uvarint_bytes(f.tag)
            self.buf += uvarint_bytes(len(f.data))
            self.buf += f.data


def encode_tagged(tag: int, write: Callable[[Writer], None]) -> RawTaggedField:
    """Encodes one known tagged field's payload so it can be sorted with the unknown ones."""
    w = Writer()
    write(w)
    return RawTaggedField(tag, bytes(w.buf))
