"""ListGroupsRequest (API key 16)

Generated from `schemas/ListGroupsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ListGroupsRequest(Message):
    NAME: ClassVar[str] = 'ListGroupsRequest'
    API_KEY: ClassVar[int] = 16
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 5
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 3
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    states_filter: list[str] = field(default_factory=list)
    types_filter: list[str] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListGroupsRequest:
        o = cls()
        if v >= 4:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array StatesFilter')
            else:
                o.states_filter = [r.compact_string() for _ in range(n)]
        if v >= 5:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array TypesFilter')
            else:
                o.types_filter = [r.compact_string() for _ in range(n)]
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 4:
            w.compact_array_length(self.states_filter)
            for states_filter_item in self.states_filter:
                w.compact_string(states_filter_item)
        if v >= 5:
            w.compact_array_length(self.types_filter)
            for types_filter_item in self.types_filter:
                w.compact_string(types_filter_item)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)
