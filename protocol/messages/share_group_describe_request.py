"""ShareGroupDescribeRequest (API key 77)

Generated from `schemas/ShareGroupDescribeRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ShareGroupDescribeRequest(Message):
    NAME: ClassVar[str] = 'ShareGroupDescribeRequest'
    API_KEY: ClassVar[int] = 77
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_ids: list[str] = field(default_factory=list)
    include_authorized_operations: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareGroupDescribeRequest:
        o = cls()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array GroupIds')
        else:
            o.group_ids = [r.compact_string() for _ in range(n)]
        o.include_authorized_operations = r.boolean()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_array_length(self.group_ids)
        for group_ids_item in self.group_ids:
            w.compact_string(group_ids_item)
        w.boolean(self.include_authorized_operations)
        w.tagged_fields(self.unknown_tagged_fields)
