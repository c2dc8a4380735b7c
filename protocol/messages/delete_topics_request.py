"""DeleteTopicsRequest (API key 20)

Generated from `schemas/DeleteTopicsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DeleteTopicState:
    name: str | None = None
    topic_id: uuid.UUID = ZERO_UUID
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DeleteTopicState:
        o = cls()
        o.name = r.compact_nullable_string()
        o.topic_id = r.uuid_value()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_nullable_string(self.name)
        w.uuid_value(self.topic_id)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DeleteTopicsRequest(Message):
    NAME: ClassVar[str] = 'DeleteTopicsRequest'
    API_KEY: ClassVar[int] = 20
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 6
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 4
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    topics: list[DeleteTopicState] = field(default_factory=list)
    topic_names: list[str] = field(default_factory=list)
    timeout_ms: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DeleteTopicsRequest:
        o = cls()
        if v >= 6:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [DeleteTopicState.read(r, v) for _ in range(n)]
        if v <= 5:
            if v <= 3:
                n = r.array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array TopicNames')
                else:
                    o.topic_names = [r.string() for _ in range(n)]
            else:
                n = r.compact_array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array TopicNames')
                else:
                    o.topic_names = [r.compact_string() for _ in range(n)]
        o.timeout_ms = r.int32()
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 6:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        if v <= 5:
            if v <= 3:
                w.array_length(self.topic_names)
                for topic_names_item in self.topic_names:
                    w.string(topic_names_item)
            else:
                w.compact_array_length(self.topic_names)
                for topic_names_item in self.topic_names:
                    w.compact_string(topic_names_item)
        w.int32(self.timeout_ms)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)
