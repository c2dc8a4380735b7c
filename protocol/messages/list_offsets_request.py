"""ListOffsetsRequest (API key 2)

Generated from `schemas/ListOffsetsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ListOffsetsPartition:
    partition_index: int = 0
    current_leader_epoch: int = -1
    timestamp: int = 0
    max_num_offsets: int = 1
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListOffsetsPartition:
        o = cls()
        o.partition_index = r.int32()
        if v >= 4:
            o.current_leader_epoch = r.int32()
        o.timestamp = r.int64()
        if v <= 0:
            o.max_num_offsets = r.int32()
        if v >= 6:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        if v >= 4:
            w.int32(self.current_leader_epoch)
        w.int64(self.timestamp)
        if v <= 0:
            w.int32(self.max_num_offsets)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ListOffsetsTopic:
    name: str = ''
    partitions: list[ListOffsetsPartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListOffsetsTopic:
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
                o.partitions = [ListOffsetsPartition.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [ListOffsetsPartition.read(r, v) for _ in range(n)]
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
class ListOffsetsRequest(Message):
    NAME: ClassVar[str] = 'ListOffsetsRequest'
    API_KEY: ClassVar[int] = 2
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 11
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 6
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    replica_id: int = 0
    isolation_level: int = 0
    topics: list[ListOffsetsTopic] = field(default_factory=list)
    timeout_ms: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListOffsetsRequest:
        o = cls()
        o.replica_id = r.int32()
        if v >= 2:
            o.isolation_level = r.int8()
        if v <= 5:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [ListOffsetsTopic.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [ListOffsetsTopic.read(r, v) for _ in range(n)]
        if v >= 10:
            o.timeout_ms = r.int32()
        if v >= 6:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.replica_id)
        if v >= 2:
            w.int8(self.isolation_level)
        if v <= 5:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        if v >= 10:
            w.int32(self.timeout_ms)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)
