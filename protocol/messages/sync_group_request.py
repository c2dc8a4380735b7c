"""SyncGroupRequest (API key 14)

Generated from `schemas/SyncGroupRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class SyncGroupRequestAssignment:
    member_id: str = ''
    assignment: bytes = b''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> SyncGroupRequestAssignment:
        o = cls()
        if v <= 3:
            o.member_id = r.string()
        else:
            o.member_id = r.compact_string()
        if v <= 3:
            o.assignment = r.blob()
        else:
            o.assignment = r.compact_blob()
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
            w.blob(self.assignment)
        else:
            w.compact_blob(self.assignment)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class SyncGroupRequest(Message):
    NAME: ClassVar[str] = 'SyncGroupRequest'
    API_KEY: ClassVar[int] = 14
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 5
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 4
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_id: str = ''
    generation_id: int = 0
    member_id: str = ''
    group_instance_id: str | None = None
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignments: list[SyncGroupRequestAssignment] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> SyncGroupRequest:
        o = cls()
        if v <= 3:
            o.group_id = r.string()
        else:
            o.group_id = r.compact_string()
        o.generation_id = r.int32()
        if v <= 3:
            o.member_id = r.string()
        else:
            o.member_id = r.compact_string()
        if v >= 3:
            if v <= 3:
                o.group_instance_id = r.nullable_string()
            else:
                o.group_instance_id = r.compact_nullable_string()
        if v >= 5:
            o.protocol_type = r.compact_nullable_string()
        if v >= 5:
            o.protocol_name = r.compact_nullable_string()
        if v <= 3:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Assignments')
            else:
                o.assignments = [SyncGroupRequestAssignment.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Assignments')
            else:
                o.assignments = [SyncGroupRequestAssignment.read(r, v) for _ in range(n)]
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 3:
            w.string(self.group_id)
        else:
            w.compact_string(self.group_id)
        w.int32(self.generation_id)
        if v <= 3:
            w.string(self.member_id)
        else:
            w.compact_string(self.member_id)
        if v >= 3:
            if v <= 3:
                w.nullable_string(self.group_instance_id)
            else:
                w.compact_nullable_string(self.group_instance_id)
        if v >= 5:
            w.compact_nullable_string(self.protocol_type)
        if v >= 5:
            w.compact_nullable_string(self.protocol_name)
        if v <= 3:
            w.array_length(self.assignments)
            for assignments_item in self.assignments:
                assignments_item.write(w, v)
        else:
            w.compact_array_length(self.assignments)
            for assignments_item in self.assignments:
                assignments_item.write(w, v)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)
