"""WriteTxnMarkersResponse (API key 27)

Generated from `schemas/WriteTxnMarkersResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class WritableTxnMarkerPartitionResult:
    partition_index: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> WritableTxnMarkerPartitionResult:
        o = cls()
        o.partition_index = r.int32()
        o.error_code = r.int16()
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int16(self.error_code)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class WritableTxnMarkerTopicResult:
    name: str = ''
    partitions: list[WritableTxnMarkerPartitionResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> WritableTxnMarkerTopicResult:
        o = cls()
        if v <= 0:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [WritableTxnMarkerPartitionResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [WritableTxnMarkerPartitionResult.read(r, v) for _ in range(n)]
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
            w.array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        else:
            w.compact_array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class WritableTxnMarkerResult:
    producer_id: int = 0
    topics: list[WritableTxnMarkerTopicResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> WritableTxnMarkerResult:
        o = cls()
        o.producer_id = r.int64()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [WritableTxnMarkerTopicResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [WritableTxnMarkerTopicResult.read(r, v) for _ in range(n)]
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int64(self.producer_id)
        if v <= 0:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class WriteTxnMarkersResponse(Message):
    NAME: ClassVar[str] = 'WriteTxnMarkersResponse'
    API_KEY: ClassVar[int] = 27
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 1
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    markers: list[WritableTxnMarkerResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> WriteTxnMarkersResponse:
        o = cls()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Markers')
            else:
                o.markers = [WritableTxnMarkerResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Markers')
            else:
                o.markers = [WritableTxnMarkerResult.read(r, v) for _ in range(n)]
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
