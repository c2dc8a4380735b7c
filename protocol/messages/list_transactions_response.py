"""ListTransactionsResponse (API key 66)

Generated from `schemas/ListTransactionsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class TransactionState:
    transactional_id: str = ''
    producer_id: int = 0
    transaction_state: str = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TransactionState:
        o = cls()
        o.transactional_id = r.compact_string()
        o.producer_id = r.int64()
        o.transaction_state = r.compact_string()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.transactional_id)
        w.int64(self.producer_id)
        w.compact_string(self.transaction_state)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ListTransactionsResponse(Message):
    NAME: ClassVar[str] = 'ListTransactionsResponse'
    API_KEY: ClassVar[int] = 66
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    unknown_state_filters: list[str] = field(default_factory=list)
    transaction_states: list[TransactionState] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ListTransactionsResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array UnknownStateFilters')
        else:
            o.unknown_state_filters = [r.compact_string() for _ in range(n)]
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array TransactionStates')
        else:
            o.transaction_states = [TransactionState.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        w.compact_array_length(self.unknown_state_filters)
        for unknown_state_filters_item in self.unknown_state_filters:
            w.compact_string(unknown_state_filters_item)
        w.compact_array_length(self.transaction_states)
        for transaction_states_item in self.transaction_states:
            transaction_states_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
