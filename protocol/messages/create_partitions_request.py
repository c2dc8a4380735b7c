"""CreatePartitionsRequest (API key 37)

Generated from `schemas/CreatePartitionsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class CreatePartitionsAssignment:
    broker_ids: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreatePartitionsAssignment:
        o = cls()
        if v <= 1:
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
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.array_length(self.broker_ids)
            for broker_ids_item in self.broker_ids:
                w.int32(broker_ids_item)
        else:
            w.compact_array_length(self.broker_ids)
            for broker_ids_item in self.broker_ids:
                w.int32(broker_ids_item)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class CreatePartitionsTopic:
    name: str = ''
    count: int = 0
    assignments: list[CreatePartitionsAssignment] | None = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreatePartitionsTopic:
        o = cls()
        if v <= 1:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        o.count = r.int32()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                o.assignments = None
            else:
                o.assignments = [CreatePartitionsAssignment.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                o.assignments = None
            else:
                o.assignments = [CreatePartitionsAssignment.read(r, v) for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.string(self.name)
        else:
            w.compact_string(self.name)
        w.int32(self.count)
        if v <= 1:
            w.array_length(self.assignments)
            if self.assignments is not None:
                for assignments_item in self.assignments:
                    assignments_item.write(w, v)
        else:
            w.compact_array_length(self.assignments)
            if self.assignments is not None:
                for assignments_item in self.assignments:
                    assignments_item.write(w, v)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class CreatePartitionsRequest(Message):
    NAME: ClassVar[str] = 'CreatePartitionsRequest'
    API_KEY: ClassVar[int] = 37
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 3
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    topics: list[CreatePartitionsTopic] = field(default_factory=list)
    timeout_ms: int = 0
    validate_only: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreatePartitionsRequest:
        o = cls()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [CreatePartitionsTopic.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [CreatePartitionsTopic.read(r, v) for _ in range(n)]
        o.timeout_ms = r.int32()
        o.validate_only = r.boolean()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        w.int32(self.timeout_ms)
        w.boolean(self.validate_only)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
