"""OffsetDeleteResponse (API key 47)

Generated from `schemas/OffsetDeleteResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class OffsetDeleteResponsePartition:
    partition_index: int = 0
    error_code: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetDeleteResponsePartition:
        o = cls()
        o.partition_index = r.int32()
        o.error_code = r.int16()
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int16(self.error_code)


@dataclass(slots=True)
class OffsetDeleteResponseTopic:
    name: str = ''
    partitions: list[OffsetDeleteResponsePartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetDeleteResponseTopic:
        o = cls()
        o.name = r.string()
        n = r.array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [OffsetDeleteResponsePartition.read(r, v) for _ in range(n)]
        return o

    def write(self, w: Writer, v: int) -> None:
        w.string(self.name)
        w.array_length(self.partitions)
        for partitions_item in self.partitions:
            partitions_item.write(w, v)


@dataclass(slots=True)
class OffsetDeleteResponse(Message):
    NAME: ClassVar[str] = 'OffsetDeleteResponse'
    API_KEY: ClassVar[int] = 47
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 32767
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    error_code: int = 0
    throttle_time_ms: int = 0
    topics: list[OffsetDeleteResponseTopic] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetDeleteResponse:
        o = cls()
        o.error_code = r.int16()
        o.throttle_time_ms = r.int32()
        n = r.array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [OffsetDeleteResponseTopic.read(r, v) for _ in range(n)]
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        w.int32(self.throttle_time_ms)
        w.array_length(self.topics)
        for topics_item in self.topics:
            topics_item.write(w, v)
