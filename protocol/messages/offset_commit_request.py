"""OffsetCommitRequest (API key 8)

Generated from `schemas/OffsetCommitRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class OffsetCommitRequestPartition:
    partition_index: int = 0
    committed_offset: int = 0
    committed_leader_epoch: int = -1
    commit_timestamp: int = -1
    committed_metadata: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetCommitRequestPartition:
        o = cls()
        o.partition_index = r.int32()
        o.committed_offset = r.int64()
        if v >= 6:
            o.committed_leader_epoch = r.int32()
        if v >= 1 and v <= 1:
            o.commit_timestamp = r.int64()
        if v <= 7:
            o.committed_metadata = r.nullable_string()
        else:
            o.committed_metadata = r.compact_nullable_string()
        if v >= 8:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int64(self.committed_offset)
        if v >= 6:
            w.int32(self.committed_leader_epoch)
        if v >= 1 and v <= 1:
            w.int64(self.commit_timestamp)
        if v <= 7:
            w.nullable_string(self.committed_metadata)
        else:
            w.compact_nullable_string(self.committed_metadata)
        if v >= 8:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetCommitRequestTopic:
    name: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[OffsetCommitRequestPartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetCommitRequestTopic:
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
                o.partitions = [OffsetCommitRequestPartition.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [OffsetCommitRequestPartition.read(r, v) for _ in range(n)]
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
class OffsetCommitRequest(Message):
    NAME: ClassVar[str] = 'OffsetCommitRequest'
    API_KEY: ClassVar[int] = 8
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 10
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 8
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_id: str = ''
    generation_id_or_member_epoch: int = -1
    member_id: str = ''
    group_instance_id: str | None = None
    retention_time_ms: int = -1
    topics: list[OffsetCommitRequestTopic] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetCommitRequest:
        o = cls()
        if v <= 7:
            o.group_id = r.string()
        else:
            o.group_id = r.compact_string()
        if v >= 1:
            o.generation_id_or_member_epoch = r.int32()
        if v >= 1:
            if v <= 7:
                o.member_id = r.string()
            else:
                o.member_id = r.compact_string()
        if v >= 7:
            if v <= 7:
                o.group_instance_id = r.nullable_string()
            else:
                o.group_instance_id = r.compact_nullable_string()
        if v >= 2 and v <= 4:
            o.retention_time_ms = r.int64()
        if v <= 7:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [OffsetCommitRequestTopic.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [OffsetCommitRequestTopic.read(r, v) for _ in range(n)]
        if v >= 8:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 7:
            w.string(self.group_id)
        else:
            w.compact_string(self.group_id)
        if v >= 1:
            w.int32(self.generation_id_or_member_epoch)
        if v >= 1:
            if v <= 7:
                w.string(self.member_id)
            else:
                w.compact_string(self.member_id)
        if v >= 7:
            if v <= 7:
                w.nullable_string(self.group_instance_id)
            else:
                w.compact_nullable_string(self.group_instance_id)
        if v >= 2 and v <= 4:
            w.int64(self.retention_time_ms)
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
