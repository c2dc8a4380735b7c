"""AlterPartitionReassignmentsResponse (API key 45)

Generated from `schemas/AlterPartitionReassignmentsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ReassignablePartitionResponse:
    partition_index: int = 0
    error_code: int = 0
    error_message: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ReassignablePartitionResponse:
        o = cls()
        o.partition_index = r.int32()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ReassignableTopicResponse:
    name: str = ''
    partitions: list[ReassignablePartitionResponse] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ReassignableTopicResponse:
        o = cls()
        o.name = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [ReassignablePartitionResponse.read(r, v) for _ in range(n)]
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
class AlterPartitionReassignmentsResponse(Message):
    NAME: ClassVar[str] = 'AlterPartitionReassignmentsResponse'
    API_KEY: ClassVar[int] = 45
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    allow_replication_factor_change: bool = True
    error_code: int = 0
    error_message: str | None = ''
    responses: list[ReassignableTopicResponse] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterPartitionReassignmentsResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        if v >= 1:
            o.allow_replication_factor_change = r.boolean()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Responses')
        else:
            o.responses = [ReassignableTopicResponse.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        if v >= 1:
            w.boolean(self.allow_replication_factor_change)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.compact_array_length(self.responses)
        for responses_item in self.responses:
            responses_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
