"""ProduceRequest (API key 0)

Generated from `schemas/ProduceRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class PartitionProduceData:
    index: int = 0
    records: RecordsData | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> PartitionProduceData:
        o = cls()
        o.index = r.int32()
        if v <= 8:
            o.records = r.nullable_records()
        else:
            o.records = r.compact_nullable_records()
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.index)
        if v <= 8:
            w.nullable_records(self.records)
        else:
            w.compact_nullable_records(self.records)
        if v >= 9:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class TopicProduceData:
    name: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    partition_data: list[PartitionProduceData] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TopicProduceData:
        o = cls()
        if v <= 12:
            if v <= 8:
                o.name = r.string()
            else:
                o.name = r.compact_string()
        if v >= 13:
            o.topic_id = r.uuid_value()
        if v <= 8:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array PartitionData')
            else:
                o.partition_data = [PartitionProduceData.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array PartitionData')
            else:
                o.partition_data = [PartitionProduceData.read(r, v) for _ in range(n)]
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 12:
            if v <= 8:
                w.string(self.name)
            else:
                w.compact_string(self.name)
        if v >= 13:
            w.uuid_value(self.topic_id)
        if v <= 8:
            w.array_length(self.partition_data)
            for partition_data_item in self.partition_data:
                partition_data_item.write(w, v)
        else:
            w.compact_array_length(self.partition_data)
            for partition_data_item in self.partition_data:
                partition_data_item.write(w, v)
        if v >= 9:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ProduceRequest(Message):
    NAME: ClassVar[str] = 'ProduceRequest'
    API_KEY: ClassVar[int] = 0
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 13
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 9
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    transactional_id: str | None = None
    acks: int = 0
    timeout_ms: int = 0
    topic_data: list[TopicProduceData] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ProduceRequest:
        o = cls()
        if v >= 3:
            if v <= 8:
                o.transactional_id = r.nullable_string()
            else:
                o.transactional_id = r.compact_nullable_string()
        o.acks = r.int16()
        o.timeout_ms = r.int32()
        if v <= 8:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array TopicData')
            else:
                o.topic_data = [TopicProduceData.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array TopicData')
            else:
                o.topic_data = [TopicProduceData.read(r, v) for _ in range(n)]
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 3:
            if v <= 8:
                w.nullable_string(self.transactional_id)
            else:
                w.compact_nullable_string(self.transactional_id)
        w.int16(self.acks)
        w.int32(self.timeout_ms)
        if v <= 8:
            w.array_length(self.topic_data)
            for topic_data_item in self.topic_data:
                topic_data_item.write(w, v)
        else:
            w.compact_array_length(self.topic_data)
            for topic_data_item in self.topic_data:
                topic_data_item.write(w, v)
        if v >= 9:
            w.tagged_fields(self.unknown_tagged_fields)
