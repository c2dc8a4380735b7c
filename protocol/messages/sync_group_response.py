"""SyncGroupResponse (API key 14)

Generated from `schemas/SyncGroupResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class SyncGroupResponse(Message):
    NAME: ClassVar[str] = 'SyncGroupResponse'
    API_KEY: ClassVar[int] = 14
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 5
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 4
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> SyncGroupResponse:
        o = cls()
        if v >= 1:
            o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        if v >= 5:
            o.protocol_type = r.compact_nullable_string()
        if v >= 5:
            o.protocol_name = r.compact_nullable_string()
        if v <= 3:
            o.assignment = r.blob()
        else:
            o.assignment = r.compact_blob()
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 1:
            w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        if v >= 5:
            w.compact_nullable_string(self.protocol_type)
        if v >= 5:
            w.compact_nullable_string(self.protocol_name)
        if v <= 3:
            w.blob(self.assignment)
        else:
            w.compact_blob(self.assignment)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)
