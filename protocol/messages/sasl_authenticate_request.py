"""SaslAuthenticateRequest (API key 36)

Generated from `schemas/SaslAuthenticateRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class SaslAuthenticateRequest(Message):
    NAME: ClassVar[str] = 'SaslAuthenticateRequest'
    API_KEY: ClassVar[int] = 36
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    auth_bytes: bytes = b''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> SaslAuthenticateRequest:
        o = cls()
        if v <= 1:
            o.auth_bytes = r.blob()
        else:
            o.auth_bytes = r.compact_blob()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.blob(self.auth_bytes)
        else:
            w.compact_blob(self.auth_bytes)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
