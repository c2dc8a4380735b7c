"""CreateTopicsRequest (API key 19)

Generated from `schemas/CreateTopicsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class CreatableReplicaAssignment:
    partition_index: int = 0
    broker_ids: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreatableReplicaAssignment:
        o = cls()
        o.partition_index = r.int32()
        if v <= 4:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array BrokerIds')
            else:
                o.broker_ids = [r.int32() for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array BrokerIds')
            else:
                o.broker_ids = [r.int32() for _ in range(n)]
        if v >= 5:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        if v <= 4:
            w.array_length(self.broker_ids)
            for broker_ids_item in self.broker_ids:
                w.int32(broker_ids_item)
        else:
            w.compact_array_length(self.broker_ids)
            for broker_ids_item in self.broker_ids:
                w.int32(broker_ids_item)
        if v >= 5:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class CreatableTopicConfig:
    name: str = ''
    value: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreatableTopicConfig:
        o = cls()
        if v <= 4:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v <= 4:
            o.value = r.nullable_string()
        else:
            o.value = r.compact_nullable_string()
        if v >= 5:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 4:
            w.string(self.name)
        else:
            w.compact_string(self.name)
        if v <= 4:
            w.nullable_string(self.value)
        else:
            w.compact_nullable_string(self.value)
        if v >= 5:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class CreatableTopic:
    name: str = ''
    num_partitions: int = 0
    replication_factor: int = 0
    assignments: list[CreatableReplicaAssignment] = field(default_factory=list)
    configs: list[CreatableTopicConfig] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreatableTopic:
        o = cls()
        if v <= 4:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        o.num_partitions = r.int32()
        o.replication_factor = r.int16()
        if v <= 4:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Assignments')
            else:
                o.assignments = [CreatableReplicaAssignment.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Assignments')
            else:
                o.assignments = [CreatableReplicaAssignment.read(r, v) for _ in range(n)]
        if v <= 4:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Configs')
            else:
                o.configs = [CreatableTopicConfig.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Configs')
            else:
                o.configs = [CreatableTopicConfig.read(r, v) for _ in range(n)]
        if v >= 5:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 4:
            w.string(self.name)
        else:
            w.compact_string(self.name)
        w.int32(self.num_partitions)
        w.int16(self.replication_factor)
        if v <= 4:
            w.array_length(self.assignments)
            for assignments_item in self.assignments:
                assignments_item.write(w, v)
        else:
            w.compact_array_length(self.assignments)
            for assignments_item in self.assignments:
                assignments_item.write(w, v)
        if v <= 4:
            w.array_length(self.configs)
            for configs_item in self.configs:
                configs_item.write(w, v)
        else:
            w.compact_array_length(self.configs)
            for configs_item in self.configs:
                configs_item.write(w, v)
        if v >= 5:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class CreateTopicsRequest(Message):
    NAME: ClassVar[str] = 'CreateTopicsRequest'
    API_KEY: ClassVar[int] = 19
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 7
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 5
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    topics: list[CreatableTopic] = field(default_factory=list)
    timeout_ms: int = 60000
    validate_only: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreateTopicsRequest:
        o = cls()
        if v <= 4:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [CreatableTopic.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [CreatableTopic.read(r, v) for _ in range(n)]
        o.timeout_ms = r.int32()
        if v >= 1:
            o.validate_only = r.boolean()
        if v >= 5:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 4:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        w.int32(self.timeout_ms)
        if v >= 1:
            w.boolean(self.validate_only)
        if v >= 5:
            w.tagged_fields(self.unknown_tagged_fields)
