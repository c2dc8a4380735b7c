"""MetadataRequest (API key 3)

Generated from `schemas/MetadataRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class MetadataRequestTopic:
    topic_id: uuid.UUID = ZERO_UUID
    name: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> MetadataRequestTopic:
        o = cls()
        if v >= 10:
            o.topic_id = r.uuid_value()
        if v <= 8:
            o.name = r.string()
        elif v >= 9 and v <= 9:
            o.name = r.compact_string()
        else:
            o.name = r.compact_nullable_string()
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 10:
            w.uuid_value(self.topic_id)
        if v <= 8:
            w.string(self.name)
        elif v >= 9 and v <= 9:
            w.compact_string(self.name)
        else:
            w.compact_nullable_string(self.name)
        if v >= 9:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class MetadataRequest(Message):
    NAME: ClassVar[str] = 'MetadataRequest'
    API_KEY: ClassVar[int] = 3
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 13
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 9
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    topics: list[MetadataRequestTopic] | None = field(default_factory=list)
    allow_auto_topic_creation: bool = True
    include_cluster_authorized_operations: bool = False
    include_topic_authorized_operations: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> MetadataRequest:
        o = cls()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [MetadataRequestTopic.read(r, v) for _ in range(n)]
        elif v >= 1 and v <= 8:
            n = r.array_length()
            if n < 0:
                o.topics = None
            else:
                o.topics = [MetadataRequestTopic.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                o.topics = None
            else:
                o.topics = [MetadataRequestTopic.read(r, v) for _ in range(n)]
        if v >= 4:
            o.allow_auto_topic_creation = r.boolean()
        if v >= 8 and v <= 10:
            o.include_cluster_authorized_operations = r.boolean()
        if v >= 8:
            o.include_topic_authorized_operations = r.boolean()
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 0:
            if self.topics is None:
                raise ValueError('Topics is not nullable in version %d' % v)
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        elif v >= 1 and v <= 8:
            w.array_length(self.topics)
            if self.topics is not None:
                for topics_item in self.topics:
                    topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            if self.topics is not None:
                for topics_item in self.topics:
                    topics_item.write(w, v)
        if v >= 4:
            w.boolean(self.allow_auto_topic_creation)
        if v >= 8 and v <= 10:
            w.boolean(self.include_cluster_authorized_operations)
        if v >= 8:
            w.boolean(self.include_topic_authorized_operations)
        if v >= 9:
            w.tagged_fields(self.unknown_tagged_fields)
