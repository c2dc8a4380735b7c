"""ListTransactionsRequest (API key 66)

Generated from `schemas/ListTransactionsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ListTransactionsRequest(Message):
    NAME: ClassVar[str] = 'ListTransactionsRequest'
    API_KEY: ClassVar[int] = 66
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    state_filters: list[str] = field(default_factory=list)
    producer_id_filters: list[int] = field(default_factory=list)
    duration_filter: int = -1
    transactional_id_pattern: str | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListTransactionsRequest:
        o = cls()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array StateFilters')
        else:
            o.state_filters = [r.compact_string() for _ in range(n)]
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array ProducerIdFilters')
        else:
            o.producer_id_filters = [r.int64() for _ in range(n)]
        if v >= 1:
            o.duration_filter = r.int64()
        if v >= 2:
            o.transactional_id_pattern = r.compact_nullable_string()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_array_length(self.state_filters)
        for state_filters_item in self.state_filters:
            w.compact_string(state_filters_item)
        w.compact_array_length(self.producer_id_filters)
        for producer_id_filters_item in self.producer_id_filters:
            w.int64(producer_id_filters_item)
        if v >= 1:
            w.int64(self.duration_filter)
        if v >= 2:
            w.compact_nullable_string(self.transactional_id_pattern)
        w.tagged_fields(self.unknown_tagged_fields)
