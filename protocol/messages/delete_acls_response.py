"""DeleteAclsResponse (API key 31)

Generated from `schemas/DeleteAclsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DeleteAclsMatchingAcl:
    error_code: int = 0
    error_message: str | None = ''
    resource_type: int = 0
    resource_name: str = ''
    pattern_type: int = 3
    principal: str = ''
    host: str = ''
    operation: int = 0
    permission_type: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DeleteAclsMatchingAcl:
        o = cls()
        o.error_code = r.int16()
        if v <= 1:
            o.error_message = r.nullable_string()
        else:
            o.error_message = r.compact_nullable_string()
        o.resource_type = r.int8()
        if v <= 1:
            o.resource_name = r.string()
        else:
            o.resource_name = r.compact_string()
        o.pattern_type = r.int8()
        if v <= 1:
            o.principal = r.string()
        else:
            o.principal = r.compact_string()
        if v <= 1:
            o.host = r.string()
        else:
            o.host = r.compact_string()
        o.operation = r.int8()
        o.permission_type = r.int8()
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
        w.int8(self.resource_type)
        if v <= 1:
            w.string(self.resource_name)
        else:
            w.compact_string(self.resource_name)
        w.int8(self.pattern_type)
        if v <= 1:
            w.string(self.principal)
        else:
            w.compact_string(self.principal)
        if v <= 1:
            w.string(self.host)
        else:
            w.compact_string(self.host)
        w.int8(self.operation)
        w.int8(self.permission_type)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DeleteAclsFilterResult:
    error_code: int = 0
    error_message: str | None = ''
    matching_acls: list[DeleteAclsMatchingAcl] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DeleteAclsFilterResult:
        o = cls()
        o.error_code = r.int16()
        if v <= 1:
            o.error_message = r.nullable_string()
        else:
            o.error_message = r.compact_nullable_string()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array MatchingAcls')
            else:
                o.matching_acls = [DeleteAclsMatchingAcl.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array MatchingAcls')
            else:
                o.matching_acls = [DeleteAclsMatchingAcl.read(r, v) for _ in range(n)]
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
        if v <= 1:
            w.array_length(self.matching_acls)
            for matching_acls_item in self.matching_acls:
                matching_acls_item.write(w, v)
        else:
            w.compact_array_length(self.matching_acls)
            for matching_acls_item in self.matching_acls:
                matching_acls_item.write(w, v)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DeleteAclsResponse(Message):
    NAME: ClassVar[str] = 'DeleteAclsResponse'
    API_KEY: ClassVar[int] = 31
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 3
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    filter_results: list[DeleteAclsFilterResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DeleteAclsResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array FilterResults')
            else:
                o.filter_results = [DeleteAclsFilterResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array FilterResults')
            else:
                o.filter_results = [DeleteAclsFilterResult.read(r, v) for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        if v <= 1:
            w.array_length(self.filter_results)
            for filter_results_item in self.filter_results:
                filter_results_item.write(w, v)
        else:
            w.compact_array_length(self.filter_results)
            for filter_results_item in self.filter_results:
                filter_results_item.write(w, v)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
