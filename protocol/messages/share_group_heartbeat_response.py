"""ShareGroupHeartbeatResponse (API key 76)

Generated from `schemas/ShareGroupHeartbeatResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class TopicPartitions:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TopicPartitions:
        o = cls()
        o.topic_id = r.uuid_value()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [r.int32() for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.uuid_value(self.topic_id)
        w.compact_array_length(self.partitions)
        for partitions_item in self.partitions:
            w.int32(partitions_item)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class Assignment:
    topic_partitions: list[TopicPartitions] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> Assignment:
        o = cls()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array TopicPartitions')
        else:
            o.topic_partitions = [TopicPartitions.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_array_length(self.topic_partitions)
        for topic_partitions_item in self.topic_partitions:
            topic_partitions_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ShareGroupHeartbeatResponse(Message):
    NAME: ClassVar[str] = 'ShareGroupHeartbeatResponse'
    API_KEY: ClassVar[int] = 76
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    member_id: str | None = None
    member_epoch: int = 0
    heartbeat_interval_ms: int = 0
    assignment: Assignment | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareGroupHeartbeatResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        o.member_id = r.compact_nullable_string()
        o.member_epoch = r.int32()
        o.heartbeat_interval_ms = r.int32()
        o.assignment = Assignment.read(r, v) if r.struct_presence() else None
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.compact_nullable_string(self.member_id)
        w.int32(self.member_epoch)
        w.int32(self.heartbeat_interval_ms)
        if self.assignment is None:
            w.int8(-1)
        else:
            w.int8(1)
            self.assignment.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
