"""DescribeClientQuotasRequest (API key 48)

Generated from `schemas/DescribeClientQuotasRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ComponentData:
    entity_type: str = ''
    match_type: int = 0
    match: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ComponentData:
        o = cls()
        if v <= 0:
            o.entity_type = r.string()
        else:
            o.entity_type = r.compact_string()
        o.match_type = r.int8()
        if v <= 0:
            o.match = r.nullable_string()
        else:
            o.match = r.compact_nullable_string()
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
        w.int8(self.match_type)
        if v <= 0:
            w.nullable_string(self.match)
        else:
            w.compact_nullable_string(self.match)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeClientQuotasRequest(Message):
    NAME: ClassVar[str] = 'DescribeClientQuotasRequest'
    API_KEY: ClassVar[int] = 48
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 1
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    components: list[ComponentData] = field(default_factory=list)
    strict: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeClientQuotasRequest:
        o = cls()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Components')
            else:
                o.components = [ComponentData.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Components')
            else:
                o.components = [ComponentData.read(r, v) for _ in range(n)]
        o.strict = r.boolean()
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 0:
            w.array_length(self.components)
            for components_item in self.components:
                components_item.write(w, v)
        else:
            w.compact_array_length(self.components)
            for components_item in self.components:
                components_item.write(w, v)
        w.boolean(self.strict)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)
