"""AlterClientQuotasResponse (API key 49)

Generated from `schemas/AlterClientQuotasResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class EntityData:
    entity_type: str = ''
    entity_name: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> EntityData:
        o = cls()
        if v <= 0:
            o.entity_type = r.string()
        else:
            o.entity_type = r.compact_string()
        if v <= 0:
            o.entity_name = r.nullable_string()
        else:
            o.entity_name = r.compact_nullable_string()
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 0:
            w.string(self.entity_type)
        else:
            w.compact_string(self.entity_type)
        if v <= 0:
            w.nullable_string(self.entity_name)
        else:
            w.compact_nullable_string(self.entity_name)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class EntryData:
    error_code: int = 0
    error_message: str | None = ''
    entity: list[EntityData] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> EntryData:
        o = cls()
        o.error_code = r.int16()
        if v <= 0:
            o.error_message = r.nullable_string()
        else:
            o.error_message = r.compact_nullable_string()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Entity')
            else:
                o.entity = [EntityData.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Entity')
            else:
                o.entity = [EntityData.read(r, v) for _ in range(n)]
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        if v <= 0:
            w.nullable_string(self.error_message)
        else:
            w.compact_nullable_string(self.error_message)
        if v <= 0:
            w.array_length(self.entity)
            for entity_item in self.entity:
                entity_item.write(w, v)
        else:
            w.compact_array_length(self.entity)
            for entity_item in self.entity:
                entity_item.write(w, v)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AlterClientQuotasResponse(Message):
    NAME: ClassVar[str] = 'AlterClientQuotasResponse'
    API_KEY: ClassVar[int] = 49
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 1
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    entries: list[EntryData] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterClientQuotasResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Entries')
            else:
                o.entries = [EntryData.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Entries')
            else:
                o.entries = [EntryData.read(r, v) for _ in range(n)]
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        if v <= 0:
            w.array_length(self.entries)
            for entries_item in self.entries:
                entries_item.write(w, v)
        else:
            w.compact_array_length(self.entries)
            for entries_item in self.entries:
                entries_item.write(w, v)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)
