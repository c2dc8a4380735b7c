"""DescribeConfigsResponse (API key 32)

Generated from `schemas/DescribeConfigsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribeConfigsSynonym:
    name: str = ''
    value: str | None = ''
    source: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeConfigsSynonym:
        o = cls()
        if v <= 3:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v <= 3:
            o.value = r.nullable_string()
        else:
            o.value = r.compact_nullable_string()
        o.source = r.int8()
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 3:
            w.string(self.name)
        else:
            w.compact_string(self.name)
        if v <= 3:
            w.nullable_string(self.value)
        else:
            w.compact_nullable_string(self.value)
        w.int8(self.source)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeConfigsResourceResult:
    name: str = ''
    value: str | None = ''
    read_only: bool = False
    is_default: bool = False
    config_source: int = -1
    is_sensitive: bool = False
    synonyms: list[DescribeConfigsSynonym] = field(default_factory=list)
    config_type: int = 0
    documentation: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeConfigsResourceResult:
        o = cls()
        if v <= 3:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v <= 3:
            o.value = r.nullable_string()
        else:
            o.value = r.compact_nullable_string()
        o.read_only = r.boolean()
        if v <= 0:
            o.is_default = r.boolean()
        if v >= 1:
            o.config_source = r.int8()
        o.is_sensitive = r.boolean()
        if v >= 1:
            if v <= 3:
                n = r.array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array Synonyms')
                else:
                    o.synonyms = [DescribeConfigsSynonym.read(r, v) for _ in range(n)]
            else:
                n = r.compact_array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array Synonyms')
                else:
                    o.synonyms = [DescribeConfigsSynonym.read(r, v) for _ in range(n)]
        if v >= 3:
            o.config_type = r.int8()
        if v >= 3:
            if v <= 3:
                o.documentation = r.nullable_string()
            else:
                o.documentation = r.compact_nullable_string()
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 3:
            w.string(self.name)
        else:
            w.compact_string(self.name)
        if v <= 3:
            w.nullable_string(self.value)
        else:
            w.compact_nullable_string(self.value)
        w.boolean(self.read_only)
        if v <= 0:
            w.boolean(self.is_default)
        if v >= 1:
            w.int8(self.config_source)
        w.boolean(self.is_sensitive)
        if v >= 1:
            if v <= 3:
                w.array_length(self.synonyms)
                for synonyms_item in self.synonyms:
                    synonyms_item.write(w, v)
            else:
                w.compact_array_length(self.synonyms)
                for synonyms_item in self.synonyms:
                    synonyms_item.write(w, v)
        if v >= 3:
            w.int8(self.config_type)
        if v >= 3:
            if v <= 3:
                w.nullable_string(self.documentation)
            else:
                w.compact_nullable_string(self.documentation)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeConfigsResult:
    error_code: int = 0
    error_message: str | None = ''
    resource_type: int = 0
    resource_name: str = ''
    configs: list[DescribeConfigsResourceResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeConfigsResult:
        o = cls()
        o.error_code = r.int16()
        if v <= 3:
            o.error_message = r.nullable_string()
        else:
            o.error_message = r.compact_nullable_string()
        o.resource_type = r.int8()
        if v <= 3:
            o.resource_name = r.string()
        else:
            o.resource_name = r.compact_string()
        if v <= 3:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Configs')
            else:
                o.configs = [DescribeConfigsResourceResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Configs')
            else:
                o.configs = [DescribeConfigsResourceResult.read(r, v) for _ in range(n)]
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        if v <= 3:
            w.nullable_string(self.error_message)
        else:
            w.compact_nullable_string(self.error_message)
        w.int8(self.resource_type)
        if v <= 3:
            w.string(self.resource_name)
        else:
            w.compact_string(self.resource_name)
        if v <= 3:
            w.array_length(self.configs)
            for configs_item in self.configs:
                configs_item.write(w, v)
        else:
            w.compact_array_length(self.configs)
            for configs_item in self.configs:
                configs_item.write(w, v)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeConfigsResponse(Message):
    NAME: ClassVar[str] = 'DescribeConfigsResponse'
    API_KEY: ClassVar[int] = 32
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 4
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 4
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    results: list[DescribeConfigsResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeConfigsResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        if v <= 3:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Results')
            else:
                o.results = [DescribeConfigsResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Results')
            else:
                o.results = [DescribeConfigsResult.read(r, v) for _ in range(n)]
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        if v <= 3:
            w.array_length(self.results)
            for results_item in self.results:
                results_item.write(w, v)
        else:
            w.compact_array_length(self.results)
            for results_item in self.results:
                results_item.write(w, v)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)
