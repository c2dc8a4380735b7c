"""DescribeAclsRequest (API key 29)

Generated from `schemas/DescribeAclsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribeAclsRequest(Message):
    NAME: ClassVar[str] = 'DescribeAclsRequest'
    API_KEY: ClassVar[int] = 29
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 3
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    resource_type_filter: int = 0
    resource_name_filter: str | None = ''
    pattern_type_filter: int = 3
    principal_filter: str | None = ''
    host_filter: str | None = ''
    operation: int = 0
    permission_type: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeAclsRequest:
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
