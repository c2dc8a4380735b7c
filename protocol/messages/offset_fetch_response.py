"""OffsetFetchResponse (API key 9)

Generated from `schemas/OffsetFetchResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class OffsetFetchResponsePartition:
    partition_index: int = 0
    committed_offset: int = 0
    committed_leader_epoch: int = -1
    metadata: str | None = ''
    error_code: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetFetchResponsePartition:
        o = cls()
        o.partition_index = r.int32()
        o.committed_offset = r.int64()
        if v >= 5:
            o.committed_leader_epoch = r.int32()
        if v <= 5:
            o.metadata = r.nullable_string()
        else:
            o.metadata = r.compact_nullable_string()
        o.error_code = r.int16()
        if v >= 6:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int64(self.committed_offset)
        if v >= 5:
            w.int32(self.committed_leader_epoch)
        if v <= 5:
            w.nullable_string(self.metadata)
        else:
            w.compact_nullable_string(self.metadata)
        w.int16(self.error_code)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetFetchResponseTopic:
    name: str = ''
    partitions: list[OffsetFetchResponsePartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetFetchResponseTopic:
        o = cls()
        if v <= 5:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v <= 5:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [OffsetFetchResponsePartition.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [OffsetFetchResponsePartition.read(r, v) for _ in range(n)]
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
            w.array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        else:
            w.compact_array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetFetchResponsePartitions:
    partition_index: int = 0
    committed_offset: int = 0
    committed_leader_epoch: int = -1
    metadata: str | None = ''
    error_code: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetFetchResponsePartitions:
        o = cls()
        o.partition_index = r.int32()
        o.committed_offset = r.int64()
        o.committed_leader_epoch = r.int32()
        o.metadata = r.compact_nullable_string()
        o.error_code = r.int16()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int64(self.committed_offset)
        w.int32(self.committed_leader_epoch)
        w.compact_nullable_string(self.metadata)
        w.int16(self.error_code)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetFetchResponseTopics:
    name: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[OffsetFetchResponsePartitions] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetFetchResponseTopics:
        o = cls()
        if v <= 9:
            o.name = r.compact_string()
        if v >= 10:
            o.topic_id = r.uuid_value()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [OffsetFetchResponsePartitions.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 9:
            w.compact_string(self.name)
        if v >= 10:
            w.uuid_value(self.topic_id)
        w.compact_array_length(self.partitions)
        for partitions_item in self.partitions:
            partitions_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetFetchResponseGroup:
    group_id: str = ''
    topics: list[OffsetFetchResponseTopics] = field(default_factory=list)
    error_code: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetFetchResponseGroup:
        o = cls()
        o.group_id = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [OffsetFetchResponseTopics.read(r, v) for _ in range(n)]
        o.error_code = r.int16()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.group_id)
        w.compact_array_length(self.topics)
        for topics_item in self.topics:
            topics_item.write(w, v)
        w.int16(self.error_code)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetFetchResponse(Message):
    NAME: ClassVar[str] = 'OffsetFetchResponse'
    API_KEY: ClassVar[int] = 9
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 10
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 6
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    topics: list[OffsetFetchResponseTopic] = field(default_factory=list)
    error_code: int = 0
    groups: list[OffsetFetchResponseGroup] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetFetchResponse:
        o = cls()
        if v >= 3:
            o.throttle_time_ms = r.int32()
        if v <= 7:
            if v <= 5:
                n = r.array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array Topics')
                else:
                    o.topics = [OffsetFetchResponseTopic.read(r, v) for _ in range(n)]
            else:
                n = r.compact_array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array Topics')
                else:
                    o.topics = [OffsetFetchResponseTopic.read(r, v) for _ in range(n)]
        if v >= 2 and v <= 7:
            o.error_code = r.int16()
        if v >= 8:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Groups')
            else:
                o.groups = [OffsetFetchResponseGroup.read(r, v) for _ in range(n)]
        if v >= 6:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 3:
            w.int32(self.throttle_time_ms)
        if v <= 7:
            if v <= 5:
                w.array_length(self.topics)
                for topics_item in self.topics:
                    topics_item.write(w, v)
            else:
                w.compact_array_length(self.topics)
                for topics_item in self.topics:
                    topics_item.write(w, v)
        if v >= 2 and v <= 7:
            w.int16(self.error_code)
        if v >= 8:
            w.compact_array_length(self.groups)
            for groups_item in self.groups:
                groups_item.write(w, v)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)
