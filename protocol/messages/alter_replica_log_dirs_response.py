"""AlterReplicaLogDirsResponse (API key 34)

Generated from `schemas/AlterReplicaLogDirsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class AlterReplicaLogDirPartitionResult:
    partition_index: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterReplicaLogDirPartitionResult:
        o = cls()
        o.partition_index = r.int32()
        o.error_code = r.int16()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int16(self.error_code)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AlterReplicaLogDirTopicResult:
    topic_name: str = ''
    partitions: list[AlterReplicaLogDirPartitionResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterReplicaLogDirTopicResult:
        o = cls()
        if v <= 1:
            o.topic_name = r.string()
        else:
            o.topic_name = r.compact_string()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [AlterReplicaLogDirPartitionResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [AlterReplicaLogDirPartitionResult.read(r, v) for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.string(self.topic_name)
        else:
            w.compact_string(self.topic_name)
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
class AlterReplicaLogDirsResponse(Message):
    NAME: ClassVar[str] = 'AlterReplicaLogDirsResponse'
    API_KEY: ClassVar[int] = 34
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    results: list[AlterReplicaLogDirTopicResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterReplicaLogDirsResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Results')
            else:
                o.results = [AlterReplicaLogDirTopicResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Results')
            else:
                o.results = [AlterReplicaLogDirTopicResult.read(r, v) for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
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
