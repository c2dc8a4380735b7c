"""JoinGroupRequest (API key 11)

Generated from `schemas/JoinGroupRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class JoinGroupRequestProtocol:
    name: str = ''
    metadata: bytes = b''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> JoinGroupRequestProtocol:
        o = cls()
        if v <= 5:
            o.name = r.string()
        else:
            o.name = r.compact_string()
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
            w.string(self.name)
        else:
            w.compact_string(self.name)
        if v <= 5:
            w.blob(self.metadata)
        else:
            w.compact_blob(self.metadata)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class JoinGroupRequest(Message):
    NAME: ClassVar[str] = 'JoinGroupRequest'
    API_KEY: ClassVar[int] = 11
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 9
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 6
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_id: str = ''
    session_timeout_ms: int = 0
    rebalance_timeout_ms: int = -1
    member_id: str = ''
    group_instance_id: str | None = None
    protocol_type: str = ''
    protocols: list[JoinGroupRequestProtocol] = field(default_factory=list)
    reason: str | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> JoinGroupRequest:
        o = cls()
        if v <= 5:
            o.group_id = r.string()
        else:
            o.group_id = r.compact_string()
        o.session_timeout_ms = r.int32()
        if v >= 1:
            o.rebalance_timeout_ms = r.int32()
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
            o.protocol_type = r.string()
        else:
            o.protocol_type = r.compact_string()
        if v <= 5:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Protocols')
            else:
                o.protocols = [JoinGroupRequestProtocol.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Protocols')
            else:
                o.protocols = [JoinGroupRequestProtocol.read(r, v) for _ in range(n)]
        if v >= 8:
            o.reason = r.compact_nullable_string()
        if v >= 6:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 5:
            w.string(self.group_id)
        else:
            w.compact_string(self.group_id)
        w.int32(self.session_timeout_ms)
        if v >= 1:
            w.int32(self.rebalance_timeout_ms)
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
            w.string(self.protocol_type)
        else:
            w.compact_string(self.protocol_type)
        if v <= 5:
            w.array_length(self.protocols)
            for protocols_item in self.protocols:
                protocols_item.write(w, v)
        else:
            w.compact_array_length(self.protocols)
            for protocols_item in self.protocols:
                protocols_item.write(w, v)
        if v >= 8:
            w.compact_nullable_string(self.reason)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)
