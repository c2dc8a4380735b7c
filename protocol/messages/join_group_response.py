"""JoinGroupResponse (API key 11)

Generated from `schemas/JoinGroupResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class JoinGroupResponseMember:
    member_id: str = ''
    group_instance_id: str | None = None
    metadata: bytes = b''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> JoinGroupResponseMember:
        o = cls()
        if v <= 5:
            o.member_id = r.string()
        else:
            o.member_id = r.compact_string()
        if v >= 5:
            if v <= 5:
                o.group_instance_id = r.nullable_string()
            else:
                o.group_instance_id = r.compact_nullable_string()
        if v <= 5:
            o.metadata = r.blob()
        else:
            o.metadata = r.compact_blob()
        if v >= 6:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 5:
            w.string(self.member_id)
        else:
            w.compact_string(self.member_id)
        if v >= 5:
            if v <= 5:
                w.nullable_string(self.group_instance_id)
            else:
                w.compact_nullable_string(self.group_instance_id)
        if v <= 5:
            w.blob(self.metadata)
        else:
            w.compact_blob(self.metadata)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class JoinGroupResponse(Message):
    NAME: ClassVar[str] = 'JoinGroupResponse'
    API_KEY: ClassVar[int] = 11
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 9
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 6
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = ''
    leader: str = ''
    skip_assignment: bool = False
    member_id: str = ''
    members: list[JoinGroupResponseMember] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> JoinGroupResponse:
        o = cls()
        if v >= 2:
            o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        o.generation_id = r.int32()
        if v >= 7:
            o.protocol_type = r.compact_nullable_string()
        if v <= 5:
            o.protocol_name = r.string()
        elif v >= 6 and v <= 6:
            o.protocol_name = r.compact_string()
        else:
            o.protocol_name = r.compact_nullable_string()
        if v <= 5:
            o.leader = r.string()
        else:
            o.leader = r.compact_string()
        if v >= 9:
            o.skip_assignment = r.boolean()
        if v <= 5:
            o.member_id = r.string()
        else:
            o.member_id = r.compact_string()
        if v <= 5:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Members')
            else:
                o.members = [JoinGroupResponseMember.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Members')
            else:
                o.members = [JoinGroupResponseMember.read(r, v) for _ in range(n)]
        if v >= 6:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 2:
            w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        w.int32(self.generation_id)
        if v >= 7:
            w.compact_nullable_string(self.protocol_type)
        if v <= 5:
            w.string(self.protocol_name)
        elif v >= 6 and v <= 6:
            w.compact_string(self.protocol_name)
        else:
            w.compact_nullable_string(self.protocol_name)
        if v <= 5:
            w.string(self.leader)
        else:
            w.compact_string(self.leader)
        if v >= 9:
            w.boolean(self.skip_assignment)
        if v <= 5:
            w.string(self.member_id)
        else:
            w.compact_string(self.member_id)
        if v <= 5:
            w.array_length(self.members)
            for members_item in self.members:
                members_item.write(w, v)
        else:
            w.compact_array_length(self.members)
            for members_item in self.members:
                members_item.write(w, v)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)
