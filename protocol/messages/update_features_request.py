"""UpdateFeaturesRequest (API key 57)

Generated from `schemas/UpdateFeaturesRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class FeatureUpdateKey:
    feature: str = ''
    max_version_level: int = 0
    allow_downgrade: bool = False
    upgrade_type: int = 1
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> FeatureUpdateKey:
        o = cls()
        o.feature = r.compact_string()
        o.max_version_level = r.int16()
        if v <= 0:
            o.allow_downgrade = r.boolean()
        if v >= 1:
            o.upgrade_type = r.int8()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.feature)
        w.int16(self.max_version_level)
        if v <= 0:
            w.boolean(self.allow_downgrade)
        if v >= 1:
            w.int8(self.upgrade_type)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class UpdateFeaturesRequest(Message):
    NAME: ClassVar[str] = 'UpdateFeaturesRequest'
    API_KEY: ClassVar[int] = 57
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    timeout_ms: int = 60000
    feature_updates: list[FeatureUpdateKey] = field(default_factory=list)
    validate_only: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> UpdateFeaturesRequest:
        o = cls()
        o.timeout_ms = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array FeatureUpdates')
        else:
            o.feature_updates = [FeatureUpdateKey.read(r, v) for _ in range(n)]
        if v >= 1:
            o.validate_only = r.boolean()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.timeout_ms)
        w.compact_array_length(self.feature_updates)
        for feature_updates_item in self.feature_updates:
            feature_updates_item.write(w, v)
        if v >= 1:
            w.boolean(self.validate_only)
        w.tagged_fields(self.unknown_tagged_fields)
