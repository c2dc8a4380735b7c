"""DeleteGroupsRequest (API key 42)

Generated from `schemas/DeleteGroupsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DeleteGroupsRequest(Message):
    NAME: ClassVar[str] = 'DeleteGroupsRequest'
    API_KEY: ClassVar[int] = 42
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    groups_names: list[str] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DeleteGroupsRequest:
        o = cls()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array GroupsNames')
            else:
                o.groups_names = [r.string() for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array GroupsNames')
            else:
                o.groups_names = [r.compact_string() for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.array_length(self.groups_names)
            for groups_names_item in self.groups_names:
                w.string(groups_names_item)
        else:
            w.compact_array_length(self.groups_names)
            for groups_names_item in self.groups_names:
                w.compact_string(groups_names_item)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
