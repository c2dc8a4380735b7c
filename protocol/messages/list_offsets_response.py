"""ListOffsetsResponse (API key 2)

Generated from `schemas/ListOffsetsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ListOffsetsPartitionResponse:
    partition_index: int = 0
    error_code: int = 0
    old_style_offsets: list[int] = field(default_factory=list)
    timestamp: int = -1
    offset: int = -1
    leader_epoch: int = -1
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListOffsetsPartitionResponse:
        o = cls()
        o.partition_index = r.int32()
        o.error_code = r.int16()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array OldStyleOffsets')
            else:
                o.old_style_offsets = [r.int64() for _ in range(n)]
        if v >= 1:
            o.timestamp = r.int64()
        if v >= 1:
            o.offset = r.int64()
        if v >= 4:
            o.leader_epoch = r.int32()
        if v >= 6:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int16(self.error_code)
        if v <= 0:
            w.array_length(self.old_style_offsets)
            for old_style_offsets_item in self.old_style_offsets:
                w.int64(old_style_offsets_item)
        if v >= 1:
            w.int64(self.timestamp)
        if v >= 1:
            w.int64(self.offset)
        if v >= 4:
            w.int32(self.leader_epoch)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ListOffsetsTopicResponse:
    name: str = ''
    partitions: list[ListOffsetsPartitionResponse] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListOffsetsTopicResponse:
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
                o.partitions = [ListOffsetsPartitionResponse.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [ListOffsetsPartitionResponse.read(r, v) for _ in range(n)]
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
class ListOffsetsResponse(Message):
    NAME: ClassVar[str] = 'ListOffsetsResponse'
    API_KEY: ClassVar[int] = 2
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 11
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 6
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    topics: list[ListOffsetsTopicResponse] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListOffsetsResponse:
        o = cls()
        if v >= 2:
            o.throttle_time_ms = r.int32()
        if v <= 5:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [ListOffsetsTopicResponse.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [ListOffsetsTopicResponse.read(r, v) for _ in range(n)]
        if v >= 6:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 2:
            w.int32(self.throttle_time_ms)
        if v <= 5:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)
