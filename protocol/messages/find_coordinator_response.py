"""FindCoordinatorResponse (API key 10)

Generated from `schemas/FindCoordinatorResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class Coordinator:
    key: str = ''
    node_id: int = 0
    host: str = ''
    port: int = 0
    error_code: int = 0
    error_message: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> Coordinator:
        o = cls()
        o.key = r.compact_string()
        o.node_id = r.int32()
        o.host = r.compact_string()
        o.port = r.int32()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.key)
        w.int32(self.node_id)
        w.compact_string(self.host)
        w.int32(self.port)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class FindCoordinatorResponse(Message):
    NAME: ClassVar[str] = 'FindCoordinatorResponse'
    API_KEY: ClassVar[int] = 10
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 6
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 3
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ''
    node_id: int = 0
    host: str = ''
    port: int = 0
    coordinators: list[Coordinator] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> FindCoordinatorResponse:
        o = cls()
        if v >= 1:
            o.throttle_time_ms = r.int32()
        if v <= 3:
            o.error_code = r.int16()
        if v >= 1 and v <= 3:
            if v <= 2:
                o.error_message = r.nullable_string()
            else:
                o.error_message = r.compact_nullable_string()
        if v <= 3:
            o.node_id = r.int32()
        if v <= 3:
            if v <= 2:
                o.host = r.string()
            else:
                o.host = r.compact_string()
        if v <= 3:
            o.port = r.int32()
        if v >= 4:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Coordinators')
            else:
                o.coordinators = [Coordinator.read(r, v) for _ in range(n)]
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 1:
            w.int32(self.throttle_time_ms)
        if v <= 3:
            w.int16(self.error_code)
        if v >= 1 and v <= 3:
            if v <= 2:
                w.nullable_string(self.error_message)
            else:
                w.compact_nullable_string(self.error_message)
        if v <= 3:
            w.int32(self.node_id)
        if v <= 3:
            if v <= 2:
                w.string(self.host)
            else:
                w.compact_string(self.host)
        if v <= 3:
            w.int32(self.port)
        if v >= 4:
            w.compact_array_length(self.coordinators)
            for coordinators_item in self.coordinators:
                coordinators_item.write(w, v)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)
