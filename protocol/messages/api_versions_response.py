"""ApiVersionsResponse (API key 18)

Generated from `schemas/ApiVersionsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ApiVersion:
    api_key: int = 0
    min_version: int = 0
    max_version: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ApiVersion:
        o = cls()
        o.api_key = r.int16()
        o.min_version = r.int16()
        o.max_version = r.int16()
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.api_key)
        w.int16(self.min_version)
        w.int16(self.max_version)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class SupportedFeatureKey:
    name: str = ''
    min_version: int = 0
    max_version: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> SupportedFeatureKey:
        o = cls()
        o.name = r.compact_string()
        o.min_version = r.int16()
        o.max_version = r.int16()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.name)
        w.int16(self.min_version)
        w.int16(self.max_version)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class FinalizedFeatureKey:
    name: str = ''
    max_version_level: int = 0
    min_version_level: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> FinalizedFeatureKey:
        o = cls()
        o.name = r.compact_string()
        o.max_version_level = r.int16()
        o.min_version_level = r.int16()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.name)
        w.int16(self.max_version_level)
        w.int16(self.min_version_level)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ApiVersionsResponse(Message):
    NAME: ClassVar[str] = 'ApiVersionsResponse'
    API_KEY: ClassVar[int] = 18
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 4
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 3
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    error_code: int = 0
    api_keys: list[ApiVersion] = field(default_factory=list)
    throttle_time_ms: int = 0
    supported_features: list[SupportedFeatureKey] = field(default_factory=list)
    finalized_features_epoch: int = -1
    finalized_features: list[FinalizedFeatureKey] = field(default_factory=list)
    zk_migration_ready: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ApiVersionsResponse:
        o = cls()
        o.error_code = r.int16()
        if v <= 2:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array ApiKeys')
            else:
                o.api_keys = [ApiVersion.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array ApiKeys')
            else:
                o.api_keys = [ApiVersion.read(r, v) for _ in range(n)]
        if v >= 1:
            o.throttle_time_ms = r.int32()
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                if tag == 0:
                    _r, r = r, sub
                    n = r.compact_array_length()
                    if n < 0:
                        raise InvalidValueError('null in non-nullable array SupportedFeatures')
                    else:
                        o.supported_features = [SupportedFeatureKey.read(r, v) for _ in range(n)]
                    r = _r
                elif tag == 1:
                    _r, r = r, sub
                    o.finalized_features_epoch = r.int64()
                    r = _r
                elif tag == 2:
                    _r, r = r, sub
                    n = r.compact_array_length()
                    if n < 0:
                        raise InvalidValueError('null in non-nullable array FinalizedFeatures')
                    else:
                        o.finalized_features = [FinalizedFeatureKey.read(r, v) for _ in range(n)]
                    r = _r
                elif tag == 3:
                    _r, r = r, sub
                    o.zk_migration_ready = r.boolean()
                    r = _r
                else:
                    o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        if v <= 2:
            w.array_length(self.api_keys)
            for api_keys_item in self.api_keys:
                api_keys_item.write(w, v)
        else:
            w.compact_array_length(self.api_keys)
            for api_keys_item in self.api_keys:
                api_keys_item.write(w, v)
        if v >= 1:
            w.int32(self.throttle_time_ms)
        if v >= 3:
            tagged = list(self.unknown_tagged_fields)
            if self.supported_features != []:
                t = Writer()
                t.compact_array_length(self.supported_features)
                for supported_features_item in self.supported_features:
                    supported_features_item.write(t, v)
                tagged.append(RawTaggedField(0, bytes(t.buf)))
            if self.finalized_features_epoch != -1:
                t = Writer()
                t.int64(self.finalized_features_epoch)
                tagged.append(RawTaggedField(1, bytes(t.buf)))
            if self.finalized_features != []:
                t = Writer()
                t.compact_array_length(self.finalized_features)
                for finalized_features_item in self.finalized_features:
                    finalized_features_item.write(t, v)
                tagged.append(RawTaggedField(2, bytes(t.buf)))
            if self.zk_migration_ready != False:
                t = Writer()
                t.boolean(self.zk_migration_ready)
                tagged.append(RawTaggedField(3, bytes(t.buf)))
            tagged.sort(key=_tag_order)
            w.tagged_fields(tagged)
