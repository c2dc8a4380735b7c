"""DescribeConfigsRequest (API key 32)

Generated from `schemas/DescribeConfigsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribeConfigsResource:
    resource_type: int = 0
    resource_name: str = ''
    configuration_keys: list[str] | None = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeConfigsResource:
        o = cls()
        o.resource_type = r.int8()
        if v <= 3:
            o.resource_name = r.string()
        else:
            o.resource_name = r.compact_string()
        if v <= 3:
            n = r.array_length()
            if n < 0:
                o.configuration_keys = None
            else:
                o.configuration_keys = [r.string() for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                o.configuration_keys = None
            else:
                o.configuration_keys = [r.compact_string() for _ in range(n)]
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int8(self.resource_type)
        if v <= 3:
            w.string(self.resource_name)
        else:
            w.compact_string(self.resource_name)
        if v <= 3:
            w.array_length(self.configuration_keys)
            if self.configuration_keys is not None:
                for configuration_keys_item in self.configuration_keys:
                    w.string(configuration_keys_item)
        else:
            w.compact_array_length(self.configuration_keys)
            if self.configuration_keys is not None:
                for configuration_keys_item in self.configuration_keys:
                    w.compact_string(configuration_keys_item)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeConfigsRequest(Message):
    NAME: ClassVar[str] = 'DescribeConfigsRequest'
    API_KEY: ClassVar[int] = 32
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 4
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 4
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    resources: list[DescribeConfigsResource] = field(default_factory=list)
    include_synonyms: bool = False
    include_documentation: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeConfigsRequest:
        o = cls()
        if v <= 3:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Resources')
            else:
                o.resources = [DescribeConfigsResource.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Resources')
            else:
                o.resources = [DescribeConfigsResource.read(r, v) for _ in range(n)]
        if v >= 1:
            o.include_synonyms = r.boolean()
        if v >= 3:
            o.include_documentation = r.boolean()
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 3:
            w.array_length(self.resources)
            for resources_item in self.resources:
                resources_item.write(w, v)
        else:
            w.compact_array_length(self.resources)
            for resources_item in self.resources:
                resources_item.write(w, v)
        if v >= 1:
            w.boolean(self.include_synonyms)
        if v >= 3:
            w.boolean(self.include_documentation)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)
