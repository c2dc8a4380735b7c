"""UnregisterBrokerResponse (API key 64)

Generated from `schemas/UnregisterBrokerResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class UnregisterBrokerResponse(Message):
    NAME: ClassVar[str] = 'UnregisterBrokerResponse'
    API_KEY: ClassVar[int] = 64
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> UnregisterBrokerResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.tagged_fields(self.unknown_tagged_fields)
