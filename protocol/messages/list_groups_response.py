"""ListGroupsResponse (API key 16)

Generated from `schemas/ListGroupsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ListedGroup:
    group_id: str = ''
    protocol_type: str = ''
    group_state: str = ''
    group_type: str = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListedGroup:
        o = cls()
        if v <= 2:
            o.group_id = r.string()
        else:
            o.group_id = r.compact_string()
        if v <= 2:
            o.protocol_type = r.string()
        else:
            o.protocol_type = r.compact_string()
        if v >= 4:
            o.group_state = r.compact_string()
        if v >= 5:
            o.group_type = r.compact_string()
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 2:
            w.string(self.group_id)
        else:
            w.compact_string(self.group_id)
        if v <= 2:
            w.string(self.protocol_type)
        else:
            w.compact_string(self.protocol_type)
        if v >= 4:
            w.compact_string(self.group_state)
        if v >= 5:
            w.compact_string(self.group_type)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ListGroupsResponse(Message):
    NAME: ClassVar[str] = 'ListGroupsResponse'
    API_KEY: ClassVar[int] = 16
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 5
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 3
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    groups: list[ListedGroup] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListGroupsResponse:
        o = cls()
        if v >= 1:
            o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        if v <= 2:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Groups')
            else:
                o.groups = [ListedGroup.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Groups')
            else:
                o.groups = [ListedGroup.read(r, v) for _ in range(n)]
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 1:
            w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        if v <= 2:
            w.array_length(self.groups)
            for groups_item in self.groups:
                groups_item.write(w, v)
        else:
            w.compact_array_length(self.groups)
            for groups_item in self.groups:
                groups_item.write(w, v)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)
