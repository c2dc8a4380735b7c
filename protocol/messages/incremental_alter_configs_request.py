"""IncrementalAlterConfigsRequest (API key 44)

Generated from `schemas/IncrementalAlterConfigsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class AlterableConfig:
    name: str = ''
    config_operation: int = 0
    value: str | None = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterableConfig:
        o = cls()
        if v <= 0:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        o.config_operation = r.int8()
        if v <= 0:
            o.value = r.nullable_string()
        else:
            o.value = r.compact_nullable_string()
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 0:
            w.string(self.name)
        else:
            w.compact_string(self.name)
        w.int8(self.config_operation)
        if v <= 0:
            w.nullable_string(self.value)
        else:
            w.compact_nullable_string(self.value)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AlterConfigsResource:
    resource_type: int = 0
    resource_name: str = ''
    configs: list[AlterableConfig] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterConfigsResource:
        o = cls()
        o.resource_type = r.int8()
        if v <= 0:
            o.resource_name = r.string()
        else:
            o.resource_name = r.compact_string()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Configs')
            else:
                o.configs = [AlterableConfig.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Configs')
            else:
                o.configs = [AlterableConfig.read(r, v) for _ in range(n)]
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int8(self.resource_type)
        if v <= 0:
            w.string(self.resource_name)
        else:
            w.compact_string(self.resource_name)
        if v <= 0:
            w.array_length(self.configs)
            for configs_item in self.configs:
                configs_item.write(w, v)
        else:
            w.compact_array_length(self.configs)
            for configs_item in self.configs:
                configs_item.write(w, v)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class IncrementalAlterConfigsRequest(Message):
    NAME: ClassVar[str] = 'IncrementalAlterConfigsRequest'
    API_KEY: ClassVar[int] = 44
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 1
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    resources: list[AlterConfigsResource] = field(default_factory=list)
    validate_only: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> IncrementalAlterConfigsRequest:
        o = cls()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Resources')
            else:
                o.resources = [AlterConfigsResource.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Resources')
            else:
                o.resources = [AlterConfigsResource.read(r, v) for _ in range(n)]
        o.validate_only = r.boolean()
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 0:
            w.array_length(self.resources)
            for resources_item in self.resources:
                resources_item.write(w, v)
        else:
            w.compact_array_length(self.resources)
            for resources_item in self.resources:
                resources_item.write(w, v)
        w.boolean(self.validate_only)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)
