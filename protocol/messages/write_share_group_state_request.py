"""WriteShareGroupStateRequest (API key 85)

Generated from `schemas/WriteShareGroupStateRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class StateBatch:
    first_offset: int = 0
    last_offset: int = 0
    delivery_state: int = 0
    delivery_count: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> StateBatch:
        o = cls()
        o.first_offset = r.int64()
        o.last_offset = r.int64()
        o.delivery_state = r.int8()
        o.delivery_count = r.int16()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int64(self.first_offset)
        w.int64(self.last_offset)
        w.int8(self.delivery_state)
        w.int16(self.delivery_count)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class PartitionData:
    partition: int = 0
    state_epoch: int = 0
    leader_epoch: int = 0
    start_offset: int = 0
    delivery_complete_count: int = -1
    state_batches: list[StateBatch] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> PartitionData:
        o = cls()
        o.partition = r.int32()
        o.state_epoch = r.int32()
        o.leader_epoch = r.int32()
        o.start_offset = r.int64()
        if v >= 1:
            o.delivery_complete_count = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array StateBatches')
        else:
            o.state_batches = [StateBatch.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition)
        w.int32(self.state_epoch)
        w.int32(self.leader_epoch)
        w.int64(self.start_offset)
        if v >= 1:
            w.int32(self.delivery_complete_count)
        w.compact_array_length(self.state_batches)
        for state_batches_item in self.state_batches:
            state_batches_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class WriteStateData:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[PartitionData] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> WriteStateData:
        o = cls()
        o.topic_id = r.uuid_value()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [PartitionData.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.uuid_value(self.topic_id)
        w.compact_array_length(self.partitions)
        for partitions_item in self.partitions:
            partitions_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class WriteShareGroupStateRequest(Message):
    NAME: ClassVar[str] = 'WriteShareGroupStateRequest'
    API_KEY: ClassVar[int] = 85
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_id: str = ''
    topics: list[WriteStateData] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> WriteShareGroupStateRequest:
        o = cls()
        o.group_id = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [WriteStateData.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.group_id)
        w.compact_array_length(self.topics)
        for topics_item in self.topics:
            topics_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
