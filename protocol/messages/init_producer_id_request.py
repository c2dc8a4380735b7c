"""InitProducerIdRequest (API key 22)

Generated from `schemas/InitProducerIdRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class InitProducerIdRequest(Message):
    NAME: ClassVar[str] = 'InitProducerIdRequest'
    API_KEY: ClassVar[int] = 22
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 6
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = True

    transactional_id: str | None = ''
    transaction_timeout_ms: int = 0
    producer_id: int = -1
    producer_epoch: int = -1
    enable2_pc: bool = False
    keep_prepared_txn: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> InitProducerIdRequest:
        o = cls()
        if v <= 1:
            o.transactional_id = r.nullable_string()
        else:
            o.transactional_id = r.compact_nullable_string()
        o.transaction_timeout_ms = r.int32()
        if v >= 3:
            o.producer_id = r.int64()
        if v >= 3:
            o.producer_epoch = r.int16()
        if v >= 6:
            o.enable2_pc = r.boolean()
        if v >= 6:
            o.keep_prepared_txn = r.boolean()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.nullable_string(self.transactional_id)
        else:
            w.compact_nullable_string(self.transactional_id)
        w.int32(self.transaction_timeout_ms)
        if v >= 3:
            w.int64(self.producer_id)
        if v >= 3:
            w.int16(self.producer_epoch)
        if v >= 6:
            w.boolean(self.enable2_pc)
        if v >= 6:
            w.boolean(self.keep_prepared_txn)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
