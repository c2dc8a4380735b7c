"""InitProducerIdResponse (API key 22)

Generated from `schemas/InitProducerIdResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class InitProducerIdResponse(Message):
    NAME: ClassVar[str] = 'InitProducerIdResponse'
    API_KEY: ClassVar[int] = 22
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 6
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    producer_id: int = -1
    producer_epoch: int = 0
    ongoing_txn_producer_id: int = -1
    ongoing_txn_producer_epoch: int = -1
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> InitProducerIdResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        o.producer_id = r.int64()
        o.producer_epoch = r.int16()
        if v >= 6:
            o.ongoing_txn_producer_id = r.int64()
        if v >= 6:
            o.ongoing_txn_producer_epoch = r.int16()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        w.int64(self.producer_id)
        w.int16(self.producer_epoch)
        if v >= 6:
            w.int64(self.ongoing_txn_producer_id)
        if v >= 6:
            w.int16(self.ongoing_txn_producer_epoch)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
