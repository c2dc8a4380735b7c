"""OffsetFetchRequest (API key 9)

Generated from `schemas/OffsetFetchRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class OffsetFetchRequestTopic:
    name: str = ''
    partition_indexes: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetFetchRequestTopic:
        o = cls()
        if v <= 5:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v <= 5:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array PartitionIndexes')
            else:
                o.partition_indexes = [r.int32() for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array PartitionIndexes')
            else:
                o.partition_indexes = [r.int32() for _ in range(n)]
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
            w.array_length(self.partition_indexes)
            for partition_indexes_item in self.partition_indexes:
                w.int32(partition_indexes_item)
        else:
            w.compact_array_length(self.partition_indexes)
            for partition_indexes_item in self.partition_indexes:
                w.int32(partition_indexes_item)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetFetchRequestTopics:
    name: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    partition_indexes: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetFetchRequestTopics:
        o = cls()
        if v <= 9:
            o.name = r.compact_string()
        if v >= 10:
            o.topic_id = r.uuid_value()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array PartitionIndexes')
        else:
            o.partition_indexes = [r.int32() for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 9:
            w.compact_string(self.name)
        if v >= 10:
            w.uuid_value(self.topic_id)
        w.compact_array_length(self.partition_indexes)
        for partition_indexes_item in self.partition_indexes:
            w.int32(partition_indexes_item)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetFetchRequestGroup:
    group_id: str = ''
    member_id: str | None = None
    member_epoch: int = -1
    topics: list[OffsetFetchRequestTopics] | None = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetFetchRequestGroup:
        o = cls()
        o.group_id = r.compact_string()
        if v >= 9:
            o.member_id = r.compact_nullable_string()
        if v >= 9:
            o.member_epoch = r.int32()
        n = r.compact_array_length()
        if n < 0:
            o.topics = None
        else:
            o.topics = [OffsetFetchRequestTopics.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.group_id)
        if v >= 9:
            w.compact_nullable_string(self.member_id)
        if v >= 9:
            w.int32(self.member_epoch)
        w.compact_array_length(self.topics)
        if self.topics is not None:
            for topics_item in self.topics:
                topics_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetFetchRequest(Message):
    NAME: ClassVar[str] = 'OffsetFetchRequest'
    API_KEY: ClassVar[int] = 9
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 10
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 6
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_id: str = ''
    topics: list[OffsetFetchRequestTopic] | None = field(default_factory=list)
    groups: list[OffsetFetchRequestGroup] = field(default_factory=list)
    require_stable: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetFetchRequest:
        o = cls()
        if v <= 7:
            if v <= 5:
                o.group_id = r.string()
            else:
                o.group_id = r.compact_string()
        if v <= 7:
            if v <= 1:
                n = r.array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array Topics')
                else:
                    o.topics = [OffsetFetchRequestTopic.read(r, v) for _ in range(n)]
            elif v >= 2 and v <= 5:
                n = r.array_length()
                if n < 0:
                    o.topics = None
                else:
                    o.topics = [OffsetFetchRequestTopic.read(r, v) for _ in range(n)]
            else:
                n = r.compact_array_length()
                if n < 0:
                    o.topics = None
                else:
                    o.topics = [OffsetFetchRequestTopic.read(r, v) for _ in range(n)]
        if v >= 8:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Groups')
            else:
                o.groups = [OffsetFetchRequestGroup.read(r, v) for _ in range(n)]
        if v >= 7:
            o.require_stable = r.boolean()
        if v >= 6:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 7:
            if v <= 5:
                w.string(self.group_id)
            else:
                w.compact_string(self.group_id)
        if v <= 7:
            if v <= 1:
                if self.topics is None:
                    raise ValueError('Topics is not nullable in version %d' % v)
                w.array_length(self.topics)
                for topics_item in self.topics:
                    topics_item.write(w, v)
            elif v >= 2 and v <= 5:
                w.array_length(self.topics)
                if self.topics is not None:
                    for topics_item in self.topics:
                        topics_item.write(w, v)
            else:
                w.compact_array_length(self.topics)
                if self.topics is not None:
                    for topics_item in self.topics:
                        topics_item.write(w, v)
        if v >= 8:
            w.compact_array_length(self.groups)
            for groups_item in self.groups:
                groups_item.write(w, v)
        if v >= 7:
            w.boolean(self.require_stable)
        if v >= 6:
            w.tagged_fields(self.unknown_tagged_fields)
