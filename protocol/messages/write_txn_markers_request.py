"""WriteTxnMarkersRequest (API key 27)

Generated from `schemas/WriteTxnMarkersRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class WritableTxnMarkerTopic:
    name: str = ''
    partition_indexes: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> WritableTxnMarkerTopic:
        o = cls()
        if v <= 0:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array PartitionIndexes')
            else:
                o.partition_indexes = [r.int32() for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array PartitionIndexes')
            else:
                o.partition_indexes = [r.int32() for _ in range(n)]
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 0:
            w.string(self.name)
        else:
            w.compact_string(self.name)
        if v <= 0:
            w.array_length(self.partition_indexes)
            for partition_indexes_item in self.partition_indexes:
                w.int32(partition_indexes_item)
        else:
            w.compact_array_length(self.partition_indexes)
            for partition_indexes_item in self.partition_indexes:
                w.int32(partition_indexes_item)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class WritableTxnMarker:
    producer_id: int = 0
    producer_epoch: int = 0
    transaction_result: bool = False
    topics: list[WritableTxnMarkerTopic] = field(default_factory=list)
    coordinator_epoch: int = 0
    transaction_version: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> WritableTxnMarker:
        o = cls()
        o.producer_id = r.int64()
        o.producer_epoch = r.int16()
        o.transaction_result = r.boolean()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [WritableTxnMarkerTopic.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [WritableTxnMarkerTopic.read(r, v) for _ in range(n)]
        o.coordinator_epoch = r.int32()
        if v >= 2:
            o.transaction_version = r.int8()
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int64(self.producer_id)
        w.int16(self.producer_epoch)
        w.boolean(self.transaction_result)
        if v <= 0:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        w.int32(self.coordinator_epoch)
        if v >= 2:
            w.int8(self.transaction_version)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class WriteTxnMarkersRequest(Message):
    NAME: ClassVar[str] = 'WriteTxnMarkersRequest'
    API_KEY: ClassVar[int] = 27
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 1
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    markers: list[WritableTxnMarker] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> WriteTxnMarkersRequest:
        o = cls()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Markers')
            else:
                o.markers = [WritableTxnMarker.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Markers')
            else:
                o.markers = [WritableTxnMarker.read(r, v) for _ in range(n)]
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 0:
            w.array_length(self.markers)
            for markers_item in self.markers:
                markers_item.write(w, v)
        else:
            w.compact_array_length(self.markers)
            for markers_item in self.markers:
                markers_item.write(w, v)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)
