"""InitializeShareGroupStateResponse (API key 83)

Generated from `schemas/InitializeShareGroupStateResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class PartitionResult:
    partition: int = 0
    error_code: int = 0
    error_message: str | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> PartitionResult:
        o = cls()
        o.partition = r.int32()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class InitializeStateResult:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[PartitionResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> InitializeStateResult:
        o = cls()
        o.topic_id = r.uuid_value()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [PartitionResult.read(r, v) for _ in range(n)]
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
class InitializeShareGroupStateResponse(Message):
    NAME: ClassVar[str] = 'InitializeShareGroupStateResponse'
    API_KEY: ClassVar[int] = 83
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    results: list[InitializeStateResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> InitializeShareGroupStateResponse:
        o = cls()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Results')
        else:
            o.results = [InitializeStateResult.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_array_length(self.results)
        for results_item in self.results:
            results_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
