"""DescribeUserScramCredentialsRequest (API key 50)

Generated from `schemas/DescribeUserScramCredentialsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class UserName:
    name: str = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> UserName:
        o = cls()
        o.name = r.compact_string()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.name)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeUserScramCredentialsRequest(Message):
    NAME: ClassVar[str] = 'DescribeUserScramCredentialsRequest'
    API_KEY: ClassVar[int] = 50
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    users: list[UserName] | None = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeUserScramCredentialsRequest:
        o = cls()
        n = r.compact_array_length()
        if n < 0:
            o.users = None
        else:
            o.users = [UserName.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_array_length(self.users)
        if self.users is not None:
            for users_item in self.users:
                users_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
