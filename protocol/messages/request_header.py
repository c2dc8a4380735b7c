"""RequestHeader

Generated from `schemas/RequestHeader.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class RequestHeader(Message):
    NAME: ClassVar[str] = 'RequestHeader'
    API_KEY: ClassVar[int] = -1
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    request_api_key: int = 0
    request_api_version: int = 0
    correlation_id: int = 0
    client_id: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> RequestHeader:
        o = cls()
        o.request_api_key = r.int16()
        o.request_api_version = r.int16()
        o.correlation_id = r.int32()
        o.client_id = r.nullable_string()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.request_api_key)
        w.int16(self.request_api_version)
        w.int32(self.correlation_id)
        w.nullable_string(self.client_id)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
