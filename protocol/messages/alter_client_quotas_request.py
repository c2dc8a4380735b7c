"""AlterClientQuotasRequest (API key 49)

Generated from `schemas/AlterClientQuotasRequest.json` by `python -m protocol.codegen`; do not edit.
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
class OpData:
    key: str = ''
    value: float = 0.0
    remove: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OpData:
        o = cls()
        if v <= 0:
            o.key = r.string()
        else:
            o.key = r.compact_string()
        o.value = r.float64()
        o.remove = r.boolean()
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 0:
            w.string(self.key)
        else:
            w.compact_string(self.key)
        w.float64(self.value)
        w.boolean(self.remove)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class EntryData:
    entity: list[EntityData] = field(default_factory=list)
    ops: list[OpData] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> EntryData:
        o = cls()
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
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Ops')
            else:
                o.ops = [OpData.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Ops')
            else:
                o.ops = [OpData.read(r, v) for _ in range(n)]
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 0:
            w.array_length(self.entity)
            for entity_item in self.entity:
                entity_item.write(w, v)
        else:
            w.compact_array_length(self.entity)
            for entity_item in self.entity:
                entity_item.write(w, v)
        if v <= 0:
            w.array_length(self.ops)
            for ops_item in self.ops:
                ops_item.write(w, v)
        else:
            w.compact_array_length(self.ops)
            for ops_item in self.ops:
                ops_item.write(w, v)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AlterClientQuotasRequest(Message):
    NAME: ClassVar[str] = 'AlterClientQuotasRequest'
    API_KEY: ClassVar[int] = 49
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 1
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    entries: list[EntryData] = field(default_factory=list)
    validate_only: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterClientQuotasRequest:
        o = cls()
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
        o.validate_only = r.boolean()
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 0:
            w.array_length(self.entries)
            for entries_item in self.entries:
                entries_item.write(w, v)
        else:
            w.compact_array_length(self.entries)
            for entries_item in self.entries:
                entries_item.write(w, v)
        w.boolean(self.validate_only)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)
