"""AddOffsetsToTxnResponse (API key 25)

Generated from `schemas/AddOffsetsToTxnResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class AddOffsetsToTxnResponse(Message):
    NAME: ClassVar[str] = 'AddOffsetsToTxnResponse'
    API_KEY: ClassVar[int] = 25
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 4
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 3
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AddOffsetsToTxnResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)
