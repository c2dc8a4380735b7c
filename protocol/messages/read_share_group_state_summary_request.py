"""ReadShareGroupStateSummaryRequest (API key 87)

Generated from `schemas/ReadShareGroupStateSummaryRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class PartitionData:
    partition: int = 0
    leader_epoch: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> PartitionData:
        o = cls()
        o.partition = r.int32()
        o.leader_epoch = r.int32()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition)
        w.int32(self.leader_epoch)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ReadStateSummaryData:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[PartitionData] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ReadStateSummaryData:
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
class ReadShareGroupStateSummaryRequest(Message):
    NAME: ClassVar[str] = 'ReadShareGroupStateSummaryRequest'
    API_KEY: ClassVar[int] = 87
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_id: str = ''
    topics: list[ReadStateSummaryData] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ReadShareGroupStateSummaryRequest:
        o = cls()
        o.group_id = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [ReadStateSummaryData.read(r, v) for _ in range(n)]
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
