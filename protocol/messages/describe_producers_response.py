"""DescribeProducersResponse (API key 61)

Generated from `schemas/DescribeProducersResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ProducerState:
    producer_id: int = 0
    producer_epoch: int = 0
    last_sequence: int = -1
    last_timestamp: int = -1
    coordinator_epoch: int = 0
    current_txn_start_offset: int = -1
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ProducerState:
        o = cls()
        o.producer_id = r.int64()
        o.producer_epoch = r.int32()
        o.last_sequence = r.int32()
        o.last_timestamp = r.int64()
        o.coordinator_epoch = r.int32()
        o.current_txn_start_offset = r.int64()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int64(self.producer_id)
        w.int32(self.producer_epoch)
        w.int32(self.last_sequence)
        w.int64(self.last_timestamp)
        w.int32(self.coordinator_epoch)
        w.int64(self.current_txn_start_offset)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class PartitionResponse:
    partition_index: int = 0
    error_code: int = 0
    error_message: str | None = None
    active_producers: list[ProducerState] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> PartitionResponse:
        o = cls()
        o.partition_index = r.int32()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array ActiveProducers')
        else:
            o.active_producers = [ProducerState.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.compact_array_length(self.active_producers)
        for active_producers_item in self.active_producers:
            active_producers_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class TopicResponse:
    name: str = ''
    partitions: list[PartitionResponse] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TopicResponse:
        o = cls()
        o.name = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [PartitionResponse.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.name)
        w.compact_array_length(self.partitions)
        for partitions_item in self.partitions:
            partitions_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeProducersResponse(Message):
    NAME: ClassVar[str] = 'DescribeProducersResponse'
    API_KEY: ClassVar[int] = 61
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    topics: list[TopicResponse] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeProducersResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [TopicResponse.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.compact_array_length(self.topics)
        for topics_item in self.topics:
            topics_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
