"""LeaveGroupResponse (API key 13)

Generated from `schemas/LeaveGroupResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class MemberResponse:
    member_id: str = ''
    group_instance_id: str | None = ''
    error_code: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> MemberResponse:
        o = cls()
        if v <= 3:
            o.member_id = r.string()
        else:
            o.member_id = r.compact_string()
        if v <= 3:
            o.group_instance_id = r.nullable_string()
        else:
            o.group_instance_id = r.compact_nullable_string()
        o.error_code = r.int16()
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 3:
            w.string(self.member_id)
        else:
            w.compact_string(self.member_id)
        if v <= 3:
            w.nullable_string(self.group_instance_id)
        else:
            w.compact_nullable_string(self.group_instance_id)
        w.int16(self.error_code)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class LeaveGroupResponse(Message):
    NAME: ClassVar[str] = 'LeaveGroupResponse'
    API_KEY: ClassVar[int] = 13
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 5
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 4
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    members: list[MemberResponse] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> LeaveGroupResponse:
        o = cls()
        if v >= 1:
            o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        if v >= 3:
            if v <= 3:
                n = r.array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array Members')
                else:
                    o.members = [MemberResponse.read(r, v) for _ in range(n)]
            else:
                n = r.compact_array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array Members')
                else:
                    o.members = [MemberResponse.read(r, v) for _ in range(n)]
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 1:
            w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        if v >= 3:
            if v <= 3:
                w.array_length(self.members)
                for members_item in self.members:
                    members_item.write(w, v)
            else:
                w.compact_array_length(self.members)
                for members_item in self.members:
                    members_item.write(w, v)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)
