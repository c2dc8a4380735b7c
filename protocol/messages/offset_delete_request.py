"""OffsetDeleteRequest (API key 47)

Generated from `schemas/OffsetDeleteRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class OffsetDeleteRequestPartition:
    partition_index: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetDeleteRequestPartition:
        o = cls()
        o.partition_index = r.int32()
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)


@dataclass(slots=True)
class OffsetDeleteRequestTopic:
    name: str = ''
    partitions: list[OffsetDeleteRequestPartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetDeleteRequestTopic:
        o = cls()
        o.name = r.string()
        n = r.array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [OffsetDeleteRequestPartition.read(r, v) for _ in range(n)]
        return o

    def write(self, w: Writer, v: int) -> None:
        w.string(self.name)
        w.array_length(self.partitions)
        for partitions_item in self.partitions:
            partitions_item.write(w, v)


@dataclass(slots=True)
class OffsetDeleteRequest(Message):
    NAME: ClassVar[str] = 'OffsetDeleteRequest'
    API_KEY: ClassVar[int] = 47
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 32767
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_id: str = ''
    topics: list[OffsetDeleteRequestTopic] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetDeleteRequest:
        o = cls()
        o.group_id = r.string()
        n = r.array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [OffsetDeleteRequestTopic.read(r, v) for _ in range(n)]
        return o

    def write(self, w: Writer, v: int) -> None:
        w.string(self.group_id)
        w.array_length(self.topics)
        for topics_item in self.topics:
            topics_item.write(w, v)
