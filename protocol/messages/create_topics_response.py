"""CreateTopicsResponse (API key 19)

Generated from `schemas/CreateTopicsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class CreatableTopicConfigs:
    name: str = ''
    value: str | None = ''
    read_only: bool = False
    config_source: int = -1
    is_sensitive: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreatableTopicConfigs:
        o = cls()
        o.name = r.compact_string()
        o.value = r.compact_nullable_string()
        o.read_only = r.boolean()
        o.config_source = r.int8()
        o.is_sensitive = r.boolean()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.name)
        w.compact_nullable_string(self.value)
        w.boolean(self.read_only)
        w.int8(self.config_source)
        w.boolean(self.is_sensitive)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class CreatableTopicResult:
    name: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    error_code: int = 0
    error_message: str | None = ''
    topic_config_error_code: int = 0
    num_partitions: int = -1
    replication_factor: int = -1
    configs: list[CreatableTopicConfigs] | None = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreatableTopicResult:
        o = cls()
        if v <= 4:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v >= 7:
            o.topic_id = r.uuid_value()
        o.error_code = r.int16()
        if v >= 1:
            if v <= 4:
                o.error_message = r.nullable_string()
            else:
                o.error_message = r.compact_nullable_string()
        if v >= 5:
            o.num_partitions = r.int32()
        if v >= 5:
            o.replication_factor = r.int16()
        if v >= 5:
            n = r.compact_array_length()
            if n < 0:
                o.configs = None
            else:
                o.configs = [CreatableTopicConfigs.read(r, v) for _ in range(n)]
        if v >= 5:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                if tag == 0:
                    _r, r = r, sub
                    o.topic_config_error_code = r.int16()
                    r = _r
                else:
                    o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 4:
            w.string(self.name)
        else:
            w.compact_string(self.name)
        if v >= 7:
            w.uuid_value(self.topic_id)
        w.int16(self.error_code)
        if v >= 1:
            if v <= 4:
                w.nullable_string(self.error_message)
            else:
                w.compact_nullable_string(self.error_message)
        if v >= 5:
            w.int32(self.num_partitions)
        if v >= 5:
            w.int16(self.replication_factor)
        if v >= 5:
            w.compact_array_length(self.configs)
            if self.configs is not None:
                for configs_item in self.configs:
                    configs_item.write(w, v)
        if v >= 5:
            tagged = list(self.unknown_tagged_fields)
            if self.topic_config_error_code != 0:
                t = Writer()
                t.int16(self.topic_config_error_code)
                tagged.append(RawTaggedField(0, bytes(t.buf)))
            tagged.sort(key=_tag_order)
            w.tagged_fields(tagged)


@dataclass(slots=True)
class CreateTopicsResponse(Message):
    NAME: ClassVar[str] = 'CreateTopicsResponse'
    API_KEY: ClassVar[int] = 19
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 7
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 5
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    topics: list[CreatableTopicResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreateTopicsResponse:
        o = cls()
        if v >= 2:
            o.throttle_time_ms = r.int32()
        if v <= 4:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [CreatableTopicResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [CreatableTopicResult.read(r, v) for _ in range(n)]
        if v >= 5:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 2:
            w.int32(self.throttle_time_ms)
        if v <= 4:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        if v >= 5:
            w.tagged_fields(self.unknown_tagged_fields)
