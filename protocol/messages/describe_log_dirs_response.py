"""DescribeLogDirsResponse (API key 35)

Generated from `schemas/DescribeLogDirsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribeLogDirsPartition:
    partition_index: int = 0
    partition_size: int = 0
    offset_lag: int = 0
    is_future_key: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeLogDirsPartition:
        o = cls()
        o.partition_index = r.int32()
        o.partition_size = r.int64()
        o.offset_lag = r.int64()
        o.is_future_key = r.boolean()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int64(self.partition_size)
        w.int64(self.offset_lag)
        w.boolean(self.is_future_key)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeLogDirsTopic:
    name: str = ''
    partitions: list[DescribeLogDirsPartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeLogDirsTopic:
        o = cls()
        if v <= 1:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [DescribeLogDirsPartition.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [DescribeLogDirsPartition.read(r, v) for _ in range(n)]
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
        if v <= 1:
            w.array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        else:
            w.compact_array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeLogDirsResult:
    error_code: int = 0
    log_dir: str = ''
    topics: list[DescribeLogDirsTopic] = field(default_factory=list)
    total_bytes: int = -1
    usable_bytes: int = -1
    is_cordoned: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeLogDirsResult:
        o = cls()
        o.error_code = r.int16()
        if v <= 1:
            o.log_dir = r.string()
        else:
            o.log_dir = r.compact_string()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [DescribeLogDirsTopic.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [DescribeLogDirsTopic.read(r, v) for _ in range(n)]
        if v >= 4:
            o.total_bytes = r.int64()
        if v >= 4:
            o.usable_bytes = r.int64()
        if v >= 5:
            o.is_cordoned = r.boolean()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        if v <= 1:
            w.string(self.log_dir)
        else:
            w.compact_string(self.log_dir)
        if v <= 1:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        if v >= 4:
            w.int64(self.total_bytes)
        if v >= 4:
            w.int64(self.usable_bytes)
        if v >= 5:
            w.boolean(self.is_cordoned)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeLogDirsResponse(Message):
    NAME: ClassVar[str] = 'DescribeLogDirsResponse'
    API_KEY: ClassVar[int] = 35
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 5
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    results: list[DescribeLogDirsResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeLogDirsResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        if v >= 3:
            o.error_code = r.int16()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Results')
            else:
                o.results = [DescribeLogDirsResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Results')
            else:
                o.results = [DescribeLogDirsResult.read(r, v) for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        if v >= 3:
            w.int16(self.error_code)
        if v <= 1:
            w.array_length(self.results)
            for results_item in self.results:
                results_item.write(w, v)
        else:
            w.compact_array_length(self.results)
            for results_item in self.results:
                results_item.write(w, v)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
