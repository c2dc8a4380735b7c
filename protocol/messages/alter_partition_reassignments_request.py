"""AlterPartitionReassignmentsRequest (API key 45)

Generated from `schemas/AlterPartitionReassignmentsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ReassignablePartition:
    partition_index: int = 0
    replicas: list[int] | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ReassignablePartition:
        o = cls()
        o.partition_index = r.int32()
        n = r.compact_array_length()
        if n < 0:
            o.replicas = None
        else:
            o.replicas = [r.int32() for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.compact_array_length(self.replicas)
        if self.replicas is not None:
            for replicas_item in self.replicas:
                w.int32(replicas_item)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ReassignableTopic:
    name: str = ''
    partitions: list[ReassignablePartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ReassignableTopic:
        o = cls()
        o.name = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [ReassignablePartition.read(r, v) for _ in range(n)]
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
class AlterPartitionReassignmentsRequest(Message):
    NAME: ClassVar[str] = 'AlterPartitionReassignmentsRequest'
    API_KEY: ClassVar[int] = 45
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    timeout_ms: int = 60000
    allow_replication_factor_change: bool = True
    topics: list[ReassignableTopic] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterPartitionReassignmentsRequest:
        o = cls()
        o.timeout_ms = r.int32()
        if v >= 1:
            o.allow_replication_factor_change = r.boolean()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [ReassignableTopic.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.timeout_ms)
        if v >= 1:
            w.boolean(self.allow_replication_factor_change)
        w.compact_array_length(self.topics)
        for topics_item in self.topics:
            topics_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
