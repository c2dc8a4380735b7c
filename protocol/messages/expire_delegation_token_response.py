"""ExpireDelegationTokenResponse (API key 40)

Generated from `schemas/ExpireDelegationTokenResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ExpireDelegationTokenResponse(Message):
    NAME: ClassVar[str] = 'ExpireDelegationTokenResponse'
    API_KEY: ClassVar[int] = 40
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    error_code: int = 0
    expiry_timestamp_ms: int = 0
    throttle_time_ms: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ExpireDelegationTokenResponse:
        o = cls()
        o.error_code = r.int16()
        o.expiry_timestamp_ms = r.int64()
        o.throttle_time_ms = r.int32()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        w.int64(self.expiry_timestamp_ms)
        w.int32(self.throttle_time_ms)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
