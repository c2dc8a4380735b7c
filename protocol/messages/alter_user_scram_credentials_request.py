"""AlterUserScramCredentialsRequest (API key 51)

Generated from `schemas/AlterUserScramCredentialsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ScramCredentialDeletion:
    name: str = ''
    mechanism: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ScramCredentialDeletion:
        o = cls()
        o.name = r.compact_string()
        o.mechanism = r.int8()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.name)
        w.int8(self.mechanism)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ScramCredentialUpsertion:
    name: str = ''
    mechanism: int = 0
    iterations: int = 0
    salt: bytes = b''
    salted_password: bytes = b''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ScramCredentialUpsertion:
        o = cls()
        o.name = r.compact_string()
        o.mechanism = r.int8()
        o.iterations = r.int32()
        o.salt = r.compact_blob()
        o.salted_password = r.compact_blob()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.name)
        w.int8(self.mechanism)
        w.int32(self.iterations)
        w.compact_blob(self.salt)
        w.compact_blob(self.salted_password)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AlterUserScramCredentialsRequest(Message):
    NAME: ClassVar[str] = 'AlterUserScramCredentialsRequest'
    API_KEY: ClassVar[int] = 51
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    deletions: list[ScramCredentialDeletion] = field(default_factory=list)
    upsertions: list[ScramCredentialUpsertion] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterUserScramCredentialsRequest:
        o = cls()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Deletions')
        else:
            o.deletions = [ScramCredentialDeletion.read(r, v) for _ in range(n)]
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Upsertions')
        else:
            o.upsertions = [ScramCredentialUpsertion.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_array_length(self.deletions)
        for deletions_item in self.deletions:
            deletions_item.write(w, v)
        w.compact_array_length(self.upsertions)
        for upsertions_item in self.upsertions:
            upsertions_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
