"""CreateDelegationTokenRequest (API key 38)

Generated from `schemas/CreateDelegationTokenRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class CreatableRenewers:
    principal_type: str = ''
    principal_name: str = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreatableRenewers:
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
class CreateDelegationTokenRequest(Message):
    NAME: ClassVar[str] = 'CreateDelegationTokenRequest'
    API_KEY: ClassVar[int] = 38
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 3
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    owner_principal_type: str | None = ''
    owner_principal_name: str | None = ''
    renewers: list[CreatableRenewers] = field(default_factory=list)
    max_lifetime_ms: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreateDelegationTokenRequest:
        o = cls()
        if v >= 3:
            o.owner_principal_type = r.compact_nullable_string()
        if v >= 3:
            o.owner_principal_name = r.compact_nullable_string()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Renewers')
            else:
                o.renewers = [CreatableRenewers.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Renewers')
            else:
                o.renewers = [CreatableRenewers.read(r, v) for _ in range(n)]
        o.max_lifetime_ms = r.int64()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 3:
            w.compact_nullable_string(self.owner_principal_type)
        if v >= 3:
            w.compact_nullable_string(self.owner_principal_name)
        if v <= 1:
            w.array_length(self.renewers)
            for renewers_item in self.renewers:
                renewers_item.write(w, v)
        else:
            w.compact_array_length(self.renewers)
            for renewers_item in self.renewers:
                renewers_item.write(w, v)
        w.int64(self.max_lifetime_ms)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
