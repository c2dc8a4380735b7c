"""FindCoordinatorRequest (API key 10)

Generated from `schemas/FindCoordinatorRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class FindCoordinatorRequest(Message):
    NAME: ClassVar[str] = 'FindCoordinatorRequest'
    API_KEY: ClassVar[int] = 10
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 6
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 3
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    key: str = ''
    key_type: int = 0
    coordinator_keys: list[str] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> FindCoordinatorRequest:
        o = cls()
        if v <= 3:
            if v <= 2:
                o.key = r.string()
            else:
                o.key = r.compact_string()
        if v >= 1:
            o.key_type = r.int8()
        if v >= 4:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array CoordinatorKeys')
            else:
                o.coordinator_keys = [r.compact_string() for _ in range(n)]
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 3:
            if v <= 2:
                w.string(self.key)
            else:
                w.compact_string(self.key)
        if v >= 1:
            w.int8(self.key_type)
        if v >= 4:
            w.compact_array_length(self.coordinator_keys)
            for coordinator_keys_item in self.coordinator_keys:
                w.compact_string(coordinator_keys_item)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)
