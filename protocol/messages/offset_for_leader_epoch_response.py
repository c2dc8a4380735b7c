"""OffsetForLeaderEpochResponse (API key 23)

Generated from `schemas/OffsetForLeaderEpochResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class EpochEndOffset:
    error_code: int = 0
    partition: int = 0
    leader_epoch: int = -1
    end_offset: int = -1
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> EpochEndOffset:
        o = cls()
        o.error_code = r.int16()
        o.partition = r.int32()
        o.leader_epoch = r.int32()
        o.end_offset = r.int64()
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        w.int32(self.partition)
        w.int32(self.leader_epoch)
        w.int64(self.end_offset)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetForLeaderTopicResult:
    topic: str = ''
    partitions: list[EpochEndOffset] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetForLeaderTopicResult:
        o = cls()
        if v <= 3:
            o.topic = r.string()
        else:
            o.topic = r.compact_string()
        if v <= 3:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [EpochEndOffset.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [EpochEndOffset.read(r, v) for _ in range(n)]
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 3:
            w.string(self.topic)
        else:
            w.compact_string(self.topic)
        if v <= 3:
            w.array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        else:
            w.compact_array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OffsetForLeaderEpochResponse(Message):
    NAME: ClassVar[str] = 'OffsetForLeaderEpochResponse'
    API_KEY: ClassVar[int] = 23
    MIN_VERSION: ClassVar[int] = 2
    MAX_VERSION: ClassVar[int] = 4
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 4
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    topics: list[OffsetForLeaderTopicResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetForLeaderEpochResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        if v <= 3:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [OffsetForLeaderTopicResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [OffsetForLeaderTopicResult.read(r, v) for _ in range(n)]
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        if v <= 3:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)
