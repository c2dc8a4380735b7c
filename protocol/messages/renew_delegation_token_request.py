"""RenewDelegationTokenRequest (API key 39)

Generated from `schemas/RenewDelegationTokenRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class RenewDelegationTokenRequest(Message):
    NAME: ClassVar[str] = 'RenewDelegationTokenRequest'
    API_KEY: ClassVar[int] = 39
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    hmac: bytes = b''
    renew_period_ms: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> RenewDelegationTokenRequest:
        o = cls()
        if v <= 1:
            o.hmac = r.blob()
        else:
            o.hmac = r.compact_blob()
        o.renew_period_ms = r.int64()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.blob(self.hmac)
        else:
            w.compact_blob(self.hmac)
        w.int64(self.renew_period_ms)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
