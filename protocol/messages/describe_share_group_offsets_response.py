"""DescribeShareGroupOffsetsResponse (API key 90)

Generated from `schemas/DescribeShareGroupOffsetsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribeShareGroupOffsetsResponsePartition:
    partition_index: int = 0
    start_offset: int = 0
    leader_epoch: int = 0
    lag: int = -1
    error_code: int = 0
    error_message: str | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeShareGroupOffsetsResponsePartition:
        o = cls()
        o.partition_index = r.int32()
        o.start_offset = r.int64()
        o.leader_epoch = r.int32()
        if v >= 1:
            o.lag = r.int64()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int64(self.start_offset)
        w.int32(self.leader_epoch)
        if v >= 1:
            w.int64(self.lag)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeShareGroupOffsetsResponseTopic:
    topic_name: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[DescribeShareGroupOffsetsResponsePartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeShareGroupOffsetsResponseTopic:
        o = cls()
        o.topic_name = r.compact_string()
        o.topic_id = r.uuid_value()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [DescribeShareGroupOffsetsResponsePartition.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.topic_name)
        w.uuid_value(self.topic_id)
        w.compact_array_length(self.partitions)
        for partitions_item in self.partitions:
            partitions_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeShareGroupOffsetsResponseGroup:
    group_id: str = ''
    topics: list[DescribeShareGroupOffsetsResponseTopic] = field(default_factory=list)
    error_code: int = 0
    error_message: str | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeShareGroupOffsetsResponseGroup:
        o = cls()
        o.group_id = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [DescribeShareGroupOffsetsResponseTopic.read(r, v) for _ in range(n)]
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
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
        w.compact_nullable_string(self.error_message)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeShareGroupOffsetsResponse(Message):
    NAME: ClassVar[str] = 'DescribeShareGroupOffsetsResponse'
    API_KEY: ClassVar[int] = 90
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    groups: list[DescribeShareGroupOffsetsResponseGroup] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeShareGroupOffsetsResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Groups')
        else:
            o.groups = [DescribeShareGroupOffsetsResponseGroup.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.compact_array_length(self.groups)
        for groups_item in self.groups:
            groups_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
