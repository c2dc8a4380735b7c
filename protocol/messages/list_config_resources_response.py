"""ListConfigResourcesResponse (API key 74)

Generated from `schemas/ListConfigResourcesResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ConfigResource:
    resource_name: str = ''
    resource_type: int = 16
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ConfigResource:
        o = cls()
        o.resource_name = r.compact_string()
        if v >= 1:
            o.resource_type = r.int8()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.resource_name)
        if v >= 1:
            w.int8(self.resource_type)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ListConfigResourcesResponse(Message):
    NAME: ClassVar[str] = 'ListConfigResourcesResponse'
    API_KEY: ClassVar[int] = 74
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    config_resources: list[ConfigResource] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListConfigResourcesResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array ConfigResources')
        else:
            o.config_resources = [ConfigResource.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        w.compact_array_length(self.config_resources)
        for config_resources_item in self.config_resources:
            config_resources_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
