"""ListConfigResourcesRequest (API key 74)

Generated from `schemas/ListConfigResourcesRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ListConfigResourcesRequest(Message):
    NAME: ClassVar[str] = 'ListConfigResourcesRequest'
    API_KEY: ClassVar[int] = 74
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    resource_types: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListConfigResourcesRequest:
        o = cls()
        if v >= 1:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array ResourceTypes')
            else:
                o.resource_types = [r.int8() for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 1:
            w.compact_array_length(self.resource_types)
            for resource_types_item in self.resource_types:
                w.int8(resource_types_item)
        w.tagged_fields(self.unknown_tagged_fields)
