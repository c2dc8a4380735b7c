"""ListPartitionReassignmentsResponse (API key 46)

Generated from `schemas/ListPartitionReassignmentsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class OngoingPartitionReassignment:
    partition_index: int = 0
    replicas: list[int] = field(default_factory=list)
    adding_replicas: list[int] = field(default_factory=list)
    removing_replicas: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OngoingPartitionReassignment:
        o = cls()
        o.partition_index = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Replicas')
        else:
            o.replicas = [r.int32() for _ in range(n)]
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array AddingReplicas')
        else:
            o.adding_replicas = [r.int32() for _ in range(n)]
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array RemovingReplicas')
        else:
            o.removing_replicas = [r.int32() for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.compact_array_length(self.replicas)
        for replicas_item in self.replicas:
            w.int32(replicas_item)
        w.compact_array_length(self.adding_replicas)
        for adding_replicas_item in self.adding_replicas:
            w.int32(adding_replicas_item)
        w.compact_array_length(self.removing_replicas)
        for removing_replicas_item in self.removing_replicas:
            w.int32(removing_replicas_item)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class OngoingTopicReassignment:
    name: str = ''
    partitions: list[OngoingPartitionReassignment] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OngoingTopicReassignment:
        o = cls()
        o.name = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [OngoingPartitionReassignment.read(r, v) for _ in range(n)]
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
class ListPartitionReassignmentsResponse(Message):
    NAME: ClassVar[str] = 'ListPartitionReassignmentsResponse'
    API_KEY: ClassVar[int] = 46
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = ''
    topics: list[OngoingTopicReassignment] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListPartitionReassignmentsResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [OngoingTopicReassignment.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.compact_array_length(self.topics)
        for topics_item in self.topics:
            topics_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
