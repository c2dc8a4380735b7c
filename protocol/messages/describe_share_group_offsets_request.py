"""DescribeShareGroupOffsetsRequest (API key 90)

Generated from `schemas/DescribeShareGroupOffsetsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribeShareGroupOffsetsRequestTopic:
    topic_name: str = ''
    partitions: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeShareGroupOffsetsRequestTopic:
        o = cls()
        o.topic_name = r.compact_string()
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
        w.compact_string(self.topic_name)
        w.compact_array_length(self.partitions)
        for partitions_item in self.partitions:
            w.int32(partitions_item)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeShareGroupOffsetsRequestGroup:
    group_id: str = ''
    topics: list[DescribeShareGroupOffsetsRequestTopic] | None = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeShareGroupOffsetsRequestGroup:
        o = cls()
        o.group_id = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            o.topics = None
        else:
            o.topics = [DescribeShareGroupOffsetsRequestTopic.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.group_id)
        w.compact_array_length(self.topics)
        if self.topics is not None:
            for topics_item in self.topics:
                topics_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeShareGroupOffsetsRequest(Message):
    NAME: ClassVar[str] = 'DescribeShareGroupOffsetsRequest'
    API_KEY: ClassVar[int] = 90
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    groups: list[DescribeShareGroupOffsetsRequestGroup] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeShareGroupOffsetsRequest:
        o = cls()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Groups')
        else:
            o.groups = [DescribeShareGroupOffsetsRequestGroup.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_array_length(self.groups)
        for groups_item in self.groups:
            groups_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
