"""CreateAclsResponse (API key 30)

Generated from `schemas/CreateAclsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class AclCreationResult:
    error_code: int = 0
    error_message: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AclCreationResult:
        o = cls()
        o.error_code = r.int16()
        if v <= 1:
            o.error_message = r.nullable_string()
        else:
            o.error_message = r.compact_nullable_string()
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
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class CreateAclsResponse(Message):
    NAME: ClassVar[str] = 'CreateAclsResponse'
    API_KEY: ClassVar[int] = 30
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 3
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    results: list[AclCreationResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreateAclsResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Results')
            else:
                o.results = [AclCreationResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Results')
            else:
                o.results = [AclCreationResult.read(r, v) for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        if v <= 1:
            w.array_length(self.results)
            for results_item in self.results:
                results_item.write(w, v)
        else:
            w.compact_array_length(self.results)
            for results_item in self.results:
                results_item.write(w, v)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
