"""GroupMetadataValue (API key 2)

Generated from `schemas/coordinator-records/GroupMetadataValue.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class MemberMetadata:
    member_id: str = ''
    group_instance_id: str | None = None
    client_id: str = ''
    client_host: str = ''
    rebalance_timeout: int = -1
    session_timeout: int = 0
    subscription: bytes = b''
    assignment: bytes = b''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> MemberMetadata:
        o = cls()
        if v <= 3:
            o.member_id = r.string()
        else:
            o.member_id = r.compact_string()
        if v >= 3:
            if v <= 3:
                o.group_instance_id = r.nullable_string()
            else:
                o.group_instance_id = r.compact_nullable_string()
        if v <= 3:
            o.client_id = r.string()
        else:
            o.client_id = r.compact_string()
        if v <= 3:
            o.client_host = r.string()
        else:
            o.client_host = r.compact_string()
        if v >= 1:
            o.rebalance_timeout = r.int32()
        o.session_timeout = r.int32()
        if v <= 3:
            o.subscription = r.blob()
        else:
            o.subscription = r.compact_blob()
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
        if v >= 3:
            if v <= 3:
                w.nullable_string(self.group_instance_id)
            else:
                w.compact_nullable_string(self.group_instance_id)
        if v <= 3:
            w.string(self.client_id)
        else:
            w.compact_string(self.client_id)
        if v <= 3:
            w.string(self.client_host)
        else:
            w.compact_string(self.client_host)
        if v >= 1:
            w.int32(self.rebalance_timeout)
        w.int32(self.session_timeout)
        if v <= 3:
            w.blob(self.subscription)
        else:
            w.compact_blob(self.subscription)
        if v <= 3:
            w.blob(self.assignment)
        else:
            w.compact_blob(self.assignment)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class GroupMetadataValue(Message):
    NAME: ClassVar[str] = 'GroupMetadataValue'
    API_KEY: ClassVar[int] = 2
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 4
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 4
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    protocol_type: str = ''
    generation: int = 0
    protocol: str | None = ''
    leader: str | None = ''
    current_state_timestamp: int = -1
    members: list[MemberMetadata] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> GroupMetadataValue:
        o = cls()
        if v <= 3:
            o.protocol_type = r.string()
        else:
            o.protocol_type = r.compact_string()
        o.generation = r.int32()
        if v <= 3:
            o.protocol = r.nullable_string()
        else:
            o.protocol = r.compact_nullable_string()
        if v <= 3:
            o.leader = r.nullable_string()
        else:
            o.leader = r.compact_nullable_string()
        if v >= 2:
            o.current_state_timestamp = r.int64()
        if v <= 3:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array members')
            else:
                o.members = [MemberMetadata.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array members')
            else:
                o.members = [MemberMetadata.read(r, v) for _ in range(n)]
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 3:
            w.string(self.protocol_type)
        else:
            w.compact_string(self.protocol_type)
        w.int32(self.generation)
        if v <= 3:
            w.nullable_string(self.protocol)
        else:
            w.compact_nullable_string(self.protocol)
        if v <= 3:
            w.nullable_string(self.leader)
        else:
            w.compact_nullable_string(self.leader)
        if v >= 2:
            w.int64(self.current_state_timestamp)
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
