"""DescribeGroupsRequest (API key 15)

Generated from `schemas/DescribeGroupsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribeGroupsRequest(Message):
    NAME: ClassVar[str] = 'DescribeGroupsRequest'
    API_KEY: ClassVar[int] = 15
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 6
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 5
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    groups: list[str] = field(default_factory=list)
    include_authorized_operations: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeGroupsRequest:
        o = cls()
        if v <= 4:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Groups')
            else:
                o.groups = [r.string() for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Groups')
            else:
                o.groups = [r.compact_string() for _ in range(n)]
        if v >= 3:
            o.include_authorized_operations = r.boolean()
        if v >= 5:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 4:
            w.array_length(self.groups)
            for groups_item in self.groups:
                w.string(groups_item)
        else:
            w.compact_array_length(self.groups)
            for groups_item in self.groups:
                w.compact_string(groups_item)
        if v >= 3:
            w.boolean(self.include_authorized_operations)
        if v >= 5:
            w.tagged_fields(self.unknown_tagged_fields)
