"""SaslAuthenticateResponse (API key 36)

Generated from `schemas/SaslAuthenticateResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class SaslAuthenticateResponse(Message):
    NAME: ClassVar[str] = 'SaslAuthenticateResponse'
    API_KEY: ClassVar[int] = 36
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    error_code: int = 0
    error_message: str | None = ''
    auth_bytes: bytes = b''
    session_lifetime_ms: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> SaslAuthenticateResponse:
        o = cls()
        o.error_code = r.int16()
        if v <= 1:
            o.error_message = r.nullable_string()
        else:
            o.error_message = r.compact_nullable_string()
        if v <= 1:
            o.auth_bytes = r.blob()
        else:
            o.auth_bytes = r.compact_blob()
        if v >= 1:
            o.session_lifetime_ms = r.int64()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        if v <= 1:
            w.nullable_string(self.error_message)
        else:
            w.compact_nullable_string(self.error_message)
        if v <= 1:
            w.blob(self.auth_bytes)
        else:
            w.compact_blob(self.auth_bytes)
        if v >= 1:
            w.int64(self.session_lifetime_ms)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
