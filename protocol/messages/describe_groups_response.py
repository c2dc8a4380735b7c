"""DescribeGroupsResponse (API key 15)

Generated from `schemas/DescribeGroupsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribedGroupMember:
    member_id: str = ''
    group_instance_id: str | None = None
    client_id: str = ''
    client_host: str = ''
    member_metadata: bytes = b''
    member_assignment: bytes = b''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribedGroupMember:
        o = cls()
        if v <= 4:
            o.member_id = r.string()
        else:
            o.member_id = r.compact_string()
        if v >= 4:
            if v <= 4:
                o.group_instance_id = r.nullable_string()
            else:
                o.group_instance_id = r.compact_nullable_string()
        if v <= 4:
            o.client_id = r.string()
        else:
            o.client_id = r.compact_string()
        if v <= 4:
            o.client_host = r.string()
        else:
            o.client_host = r.compact_string()
        if v <= 4:
            o.member_metadata = r.blob()
        else:
            o.member_metadata = r.compact_blob()
        if v <= 4:
            o.member_assignment = r.blob()
        else:
            o.member_assignment = r.compact_blob()
        if v >= 5:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 4:
            w.string(self.member_id)
        else:
            w.compact_string(self.member_id)
        if v >= 4:
            if v <= 4:
                w.nullable_string(self.group_instance_id)
            else:
                w.compact_nullable_string(self.group_instance_id)
        if v <= 4:
            w.string(self.client_id)
        else:
            w.compact_string(self.client_id)
        if v <= 4:
            w.string(self.client_host)
        else:
            w.compact_string(self.client_host)
        if v <= 4:
            w.blob(self.member_metadata)
        else:
            w.compact_blob(self.member_metadata)
        if v <= 4:
            w.blob(self.member_assignment)
        else:
            w.compact_blob(self.member_assignment)
        if v >= 5:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribedGroup:
    error_code: int = 0
    error_message: str | None = None
    group_id: str = ''
    group_state: str = ''
    protocol_type: str = ''
    protocol_data: str = ''
    members: list[DescribedGroupMember] = field(default_factory=list)
    authorized_operations: int = -2147483648
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribedGroup:
        o = cls()
        o.error_code = r.int16()
        if v >= 6:
            o.error_message = r.compact_nullable_string()
        if v <= 4:
            o.group_id = r.string()
        else:
            o.group_id = r.compact_string()
        if v <= 4:
            o.group_state = r.string()
        else:
            o.group_state = r.compact_string()
        if v <= 4:
            o.protocol_type = r.string()
        else:
            o.protocol_type = r.compact_string()
        if v <= 4:
            o.protocol_data = r.string()
        else:
            o.protocol_data = r.compact_string()
        if v <= 4:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Members')
            else:
                o.members = [DescribedGroupMember.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Members')
            else:
                o.members = [DescribedGroupMember.read(r, v) for _ in range(n)]
        if v >= 3:
            o.authorized_operations = r.int32()
        if v >= 5:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        if v >= 6:
            w.compact_nullable_string(self.error_message)
        if v <= 4:
            w.string(self.group_id)
        else:
            w.compact_string(self.group_id)
        if v <= 4:
            w.string(self.group_state)
        else:
            w.compact_string(self.group_state)
        if v <= 4:
            w.string(self.protocol_type)
        else:
            w.compact_string(self.protocol_type)
        if v <= 4:
            w.string(self.protocol_data)
        else:
            w.compact_string(self.protocol_data)
        if v <= 4:
            w.array_length(self.members)
            for members_item in self.members:
                members_item.write(w, v)
        else:
            w.compact_array_length(self.members)
            for members_item in self.members:
                members_item.write(w, v)
        if v >= 3:
            w.int32(self.authorized_operations)
        if v >= 5:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeGroupsResponse(Message):
    NAME: ClassVar[str] = 'DescribeGroupsResponse'
    API_KEY: ClassVar[int] = 15
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 6
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 5
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    groups: list[DescribedGroup] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeGroupsResponse:
        o = cls()
        if v >= 1:
            o.throttle_time_ms = r.int32()
        if v <= 4:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Groups')
            else:
                o.groups = [DescribedGroup.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Groups')
            else:
                o.groups = [DescribedGroup.read(r, v) for _ in range(n)]
        if v >= 5:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 1:
            w.int32(self.throttle_time_ms)
        if v <= 4:
            w.array_length(self.groups)
            for groups_item in self.groups:
                groups_item.write(w, v)
        else:
            w.compact_array_length(self.groups)
            for groups_item in self.groups:
                groups_item.write(w, v)
        if v >= 5:
            w.tagged_fields(self.unknown_tagged_fields)
