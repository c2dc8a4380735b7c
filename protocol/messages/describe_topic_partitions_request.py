"""DescribeTopicPartitionsRequest (API key 75)

Generated from `schemas/DescribeTopicPartitionsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class TopicRequest:
    name: str = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TopicRequest:
        o = cls()
        o.name = r.compact_string()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.name)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class Cursor:
    topic_name: str = ''
    partition_index: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> Cursor:
        o = cls()
        o.topic_name = r.compact_string()
        o.partition_index = r.int32()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.topic_name)
        w.int32(self.partition_index)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeTopicPartitionsRequest(Message):
    NAME: ClassVar[str] = 'DescribeTopicPartitionsRequest'
    API_KEY: ClassVar[int] = 75
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    topics: list[TopicRequest] = field(default_factory=list)
    response_partition_limit: int = 2000
    cursor: Cursor | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeTopicPartitionsRequest:
        o = cls()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [TopicRequest.read(r, v) for _ in range(n)]
        o.response_partition_limit = r.int32()
        o.cursor = Cursor.read(r, v) if r.struct_presence() else None
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_array_length(self.topics)
        for topics_item in self.topics:
            topics_item.write(w, v)
        w.int32(self.response_partition_limit)
        if self.cursor is None:
            w.int8(-1)
        else:
            w.int8(1)
            self.cursor.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
