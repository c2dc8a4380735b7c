"""DeleteAclsRequest (API key 31)

Generated from `schemas/DeleteAclsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DeleteAclsFilter:
    resource_type_filter: int = 0
    resource_name_filter: str | None = ''
    pattern_type_filter: int = 3
    principal_filter: str | None = ''
    host_filter: str | None = ''
    operation: int = 0
    permission_type: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DeleteAclsFilter:
        o = cls()
        o.resource_type_filter = r.int8()
        if v <= 1:
            o.resource_name_filter = r.nullable_string()
        else:
            o.resource_name_filter = r.compact_nullable_string()
        o.pattern_type_filter = r.int8()
        if v <= 1:
            o.principal_filter = r.nullable_string()
        else:
            o.principal_filter = r.compact_nullable_string()
        if v <= 1:
            o.host_filter = r.nullable_string()
        else:
            o.host_filter = r.compact_nullable_string()
        o.operation = r.int8()
        o.permission_type = r.int8()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int8(self.resource_type_filter)
        if v <= 1:
            w.nullable_string(self.resource_name_filter)
        else:
            w.compact_nullable_string(self.resource_name_filter)
        w.int8(self.pattern_type_filter)
        if v <= 1:
            w.nullable_string(self.principal_filter)
        else:
            w.compact_nullable_string(self.principal_filter)
        if v <= 1:
            w.nullable_string(self.host_filter)
        else:
            w.compact_nullable_string(self.host_filter)
        w.int8(self.operation)
        w.int8(self.permission_type)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DeleteAclsRequest(Message):
    NAME: ClassVar[str] = 'DeleteAclsRequest'
    API_KEY: ClassVar[int] = 31
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 3
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    filters: list[DeleteAclsFilter] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DeleteAclsRequest:
        o = cls()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Filters')
            else:
                o.filters = [DeleteAclsFilter.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Filters')
            else:
                o.filters = [DeleteAclsFilter.read(r, v) for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.array_length(self.filters)
            for filters_item in self.filters:
                filters_item.write(w, v)
        else:
            w.compact_array_length(self.filters)
            for filters_item in self.filters:
                filters_item.write(w, v)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
