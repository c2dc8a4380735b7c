"""DescribeDelegationTokenResponse (API key 41)

Generated from `schemas/DescribeDelegationTokenResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribedDelegationTokenRenewer:
    principal_type: str = ''
    principal_name: str = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribedDelegationTokenRenewer:
        o = cls()
        if v <= 1:
            o.principal_type = r.string()
        else:
            o.principal_type = r.compact_string()
        if v <= 1:
            o.principal_name = r.string()
        else:
            o.principal_name = r.compact_string()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.string(self.principal_type)
        else:
            w.compact_string(self.principal_type)
        if v <= 1:
            w.string(self.principal_name)
        else:
            w.compact_string(self.principal_name)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribedDelegationToken:
    principal_type: str = ''
    principal_name: str = ''
    token_requester_principal_type: str = ''
    token_requester_principal_name: str = ''
    issue_timestamp: int = 0
    expiry_timestamp: int = 0
    max_timestamp: int = 0
    token_id: str = ''
    hmac: bytes = b''
    renewers: list[DescribedDelegationTokenRenewer] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribedDelegationToken:
        o = cls()
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
        o.issue_timestamp = r.int64()
        o.expiry_timestamp = r.int64()
        o.max_timestamp = r.int64()
        if v <= 1:
            o.token_id = r.string()
        else:
            o.token_id = r.compact_string()
        if v <= 1:
            o.hmac = r.blob()
        else:
            o.hmac = r.compact_blob()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Renewers')
            else:
                o.renewers = [DescribedDelegationTokenRenewer.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Renewers')
            else:
                o.renewers = [DescribedDelegationTokenRenewer.read(r, v) for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
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
        w.int64(self.issue_timestamp)
        w.int64(self.expiry_timestamp)
        w.int64(self.max_timestamp)
        if v <= 1:
            w.string(self.token_id)
        else:
            w.compact_string(self.token_id)
        if v <= 1:
            w.blob(self.hmac)
        else:
            w.compact_blob(self.hmac)
        if v <= 1:
            w.array_length(self.renewers)
            for renewers_item in self.renewers:
                renewers_item.write(w, v)
        else:
            w.compact_array_length(self.renewers)
            for renewers_item in self.renewers:
                renewers_item.write(w, v)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeDelegationTokenResponse(Message):
    NAME: ClassVar[str] = 'DescribeDelegationTokenResponse'
    API_KEY: ClassVar[int] = 41
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 3
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    error_code: int = 0
    tokens: list[DescribedDelegationToken] = field(default_factory=list)
    throttle_time_ms: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeDelegationTokenResponse:
        o = cls()
        o.error_code = r.int16()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Tokens')
            else:
                o.tokens = [DescribedDelegationToken.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Tokens')
            else:
                o.tokens = [DescribedDelegationToken.read(r, v) for _ in range(n)]
        o.throttle_time_ms = r.int32()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        if v <= 1:
            w.array_length(self.tokens)
            for tokens_item in self.tokens:
                tokens_item.write(w, v)
        else:
            w.compact_array_length(self.tokens)
            for tokens_item in self.tokens:
                tokens_item.write(w, v)
        w.int32(self.throttle_time_ms)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
