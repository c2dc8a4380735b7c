"""TxnOffsetCommitRequest (API key 28)

Generated from `schemas/TxnOffsetCommitRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class TxnOffsetCommitRequestPartition:
    partition_index: int = 0
    committed_offset: int = 0
    committed_leader_epoch: int = -1
    committed_metadata: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TxnOffsetCommitRequestPartition:
        o = cls()
        o.partition_index = r.int32()
        o.committed_offset = r.int64()
        if v >= 2:
            o.committed_leader_epoch = r.int32()
        if v <= 2:
            o.committed_metadata = r.nullable_string()
        else:
            o.committed_metadata = r.compact_nullable_string()
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int64(self.committed_offset)
        if v >= 2:
            w.int32(self.committed_leader_epoch)
        if v <= 2:
            w.nullable_string(self.committed_metadata)
        else:
            w.compact_nullable_string(self.committed_metadata)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class TxnOffsetCommitRequestTopic:
    name: str = ''
    partitions: list[TxnOffsetCommitRequestPartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TxnOffsetCommitRequestTopic:
        o = cls()
        if v <= 2:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v <= 2:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [TxnOffsetCommitRequestPartition.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [TxnOffsetCommitRequestPartition.read(r, v) for _ in range(n)]
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 2:
            w.string(self.name)
        else:
            w.compact_string(self.name)
        if v <= 2:
            w.array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        else:
            w.compact_array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class TxnOffsetCommitRequest(Message):
    NAME: ClassVar[str] = 'TxnOffsetCommitRequest'
    API_KEY: ClassVar[int] = 28
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 5
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 3
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    transactional_id: str = ''
    group_id: str = ''
    producer_id: int = 0
    producer_epoch: int = 0
    generation_id: int = -1
    member_id: str = ''
    group_instance_id: str | None = None
    topics: list[TxnOffsetCommitRequestTopic] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TxnOffsetCommitRequest:
        o = cls()
        if v <= 2:
            o.transactional_id = r.string()
        else:
            o.transactional_id = r.compact_string()
        if v <= 2:
            o.group_id = r.string()
        else:
            o.group_id = r.compact_string()
        o.producer_id = r.int64()
        o.producer_epoch = r.int16()
        if v >= 3:
            o.generation_id = r.int32()
        if v >= 3:
            o.member_id = r.compact_string()
        if v >= 3:
            o.group_instance_id = r.compact_nullable_string()
        if v <= 2:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [TxnOffsetCommitRequestTopic.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [TxnOffsetCommitRequestTopic.read(r, v) for _ in range(n)]
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 2:
            w.string(self.transactional_id)
        else:
            w.compact_string(self.transactional_id)
        if v <= 2:
            w.string(self.group_id)
        else:
            w.compact_string(self.group_id)
        w.int64(self.producer_id)
        w.int16(self.producer_epoch)
        if v >= 3:
            w.int32(self.generation_id)
        if v >= 3:
            w.compact_string(self.member_id)
        if v >= 3:
            w.compact_nullable_string(self.group_instance_id)
        if v <= 2:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)
