"""OffsetCommitResponse (API key 8)

Generated from `schemas/OffsetCommitResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class OffsetCommitResponsePartition:
    partition_index: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetCommitResponsePartition:
        o = cls()
        o.partition_index = r.int32()
        o.error_code = r.int16()
        if v >= 8:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int16(self.error_code)
        if v >= 8:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetCommitResponseTopic:
    name: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[OffsetCommitResponsePartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetCommitResponseTopic:
        o = cls()
        if v <= 9:
            if v <= 7:
                o.name = r.string()
            else:
                o.name = r.compact_string()
        if v >= 10:
            o.topic_id = r.uuid_value()
        if v <= 7:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [OffsetCommitResponsePartition.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [OffsetCommitResponsePartition.read(r, v) for _ in range(n)]
        if v >= 8:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 9:
            if v <= 7:
                w.string(self.name)
            else:
                w.compact_string(self.name)
        if v >= 10:
            w.uuid_value(self.topic_id)
        if v <= 7:
            w.array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        else:
            w.compact_array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        if v >= 8:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetCommitResponse(Message):
    NAME: ClassVar[str] = 'OffsetCommitResponse'
    API_KEY: ClassVar[int] = 8
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 10
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 8
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    topics: list[OffsetCommitResponseTopic] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetCommitResponse:
        o = cls()
        if v >= 3:
            o.throttle_time_ms = r.int32()
        if v <= 7:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [OffsetCommitResponseTopic.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [OffsetCommitResponseTopic.read(r, v) for _ in range(n)]
        if v >= 8:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 3:
            w.int32(self.throttle_time_ms)
        if v <= 7:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        if v >= 8:
            w.tagged_fields(self.unknown_tagged_fields)
