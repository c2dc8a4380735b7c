"""ListPartitionReassignmentsRequest (API key 46)

Generated from `schemas/ListPartitionReassignmentsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ListPartitionReassignmentsTopics:
    name: str = ''
    partition_indexes: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListPartitionReassignmentsTopics:
        o = cls()
        o.name = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array PartitionIndexes')
        else:
            o.partition_indexes = [r.int32() for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.name)
        w.compact_array_length(self.partition_indexes)
        for partition_indexes_item in self.partition_indexes:
            w.int32(partition_indexes_item)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ListPartitionReassignmentsRequest(Message):
    NAME: ClassVar[str] = 'ListPartitionReassignmentsRequest'
    API_KEY: ClassVar[int] = 46
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    timeout_ms: int = 60000
    topics: list[ListPartitionReassignmentsTopics] | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListPartitionReassignmentsRequest:
        o = cls()
        o.timeout_ms = r.int32()
        n = r.compact_array_length()
        if n < 0:
            o.topics = None
        else:
            o.topics = [ListPartitionReassignmentsTopics.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.timeout_ms)
        w.compact_array_length(self.topics)
        if self.topics is not None:
            for topics_item in self.topics:
                topics_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
