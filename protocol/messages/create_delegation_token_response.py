"""CreateDelegationTokenResponse (API key 38)

Generated from `schemas/CreateDelegationTokenResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class CreateDelegationTokenResponse(Message):
    NAME: ClassVar[str] = 'CreateDelegationTokenResponse'
    API_KEY: ClassVar[int] = 38
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 3
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    error_code: int = 0
    principal_type: str = ''
    principal_name: str = ''
    token_requester_principal_type: str = ''
    token_requester_principal_name: str = ''
    issue_timestamp_ms: int = 0
    expiry_timestamp_ms: int = 0
    max_timestamp_ms: int = 0
    token_id: str = ''
    hmac: bytes = b''
    throttle_time_ms: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreateDelegationTokenResponse:
        o = cls()
        o.error_code = r.int16()
        if v <= 1:
            o.principal_type = r.string()
        else:
            o.principal_type = r.compact_string()
        if v <= 1:
            o.principal_name = r.string()
        else:
            o.principal_name = r.compact_string()
        if v >= 3:
            o.token_requester_principal_type = r.compact_string()
        if v >= 3:
            o.token_requester_principal_name = r.compact_string()
        o.issue_timestamp_ms = r.int64()
        o.expiry_timestamp_ms = r.int64()
        o.max_timestamp_ms = r.int64()
        if v <= 1:
            o.token_id = r.string()
        else:
            o.token_id = r.compact_string()
        if v <= 1:
            o.hmac = r.blob()
        else:
            o.hmac = r.compact_blob()
        o.throttle_time_ms = r.int32()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        if v <= 1:
            w.string(self.principal_type)
        else:
            w.compact_string(self.principal_type)
        if v <= 1:
            w.string(self.principal_name)
        else:
            w.compact_string(self.principal_name)
        if v >= 3:
            w.compact_string(self.token_requester_principal_type)
        if v >= 3:
            w.compact_string(self.token_requester_principal_name)
        w.int64(self.issue_timestamp_ms)
        w.int64(self.expiry_timestamp_ms)
        w.int64(self.max_timestamp_ms)
        if v <= 1:
            w.string(self.token_id)
        else:
            w.compact_string(self.token_id)
        if v <= 1:
            w.blob(self.hmac)
        else:
            w.compact_blob(self.hmac)
        w.int32(self.throttle_time_ms)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
