"""DescribeDelegationTokenRequest (API key 41)

Generated from `schemas/DescribeDelegationTokenRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribeDelegationTokenOwner:
    principal_type: str = ''
    principal_name: str = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeDelegationTokenOwner:
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
class DescribeDelegationTokenRequest(Message):
    NAME: ClassVar[str] = 'DescribeDelegationTokenRequest'
    API_KEY: ClassVar[int] = 41
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 3
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    owners: list[DescribeDelegationTokenOwner] | None = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeDelegationTokenRequest:
        o = cls()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                o.owners = None
            else:
                o.owners = [DescribeDelegationTokenOwner.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                o.owners = None
            else:
                o.owners = [DescribeDelegationTokenOwner.read(r, v) for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.array_length(self.owners)
            if self.owners is not None:
                for owners_item in self.owners:
                    owners_item.write(w, v)
        else:
            w.compact_array_length(self.owners)
            if self.owners is not None:
                for owners_item in self.owners:
                    owners_item.write(w, v)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
