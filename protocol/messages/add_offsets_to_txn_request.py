"""AddOffsetsToTxnRequest (API key 25)

Generated from `schemas/AddOffsetsToTxnRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class AddOffsetsToTxnRequest(Message):
    NAME: ClassVar[str] = 'AddOffsetsToTxnRequest'
    API_KEY: ClassVar[int] = 25
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 4
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 3
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    transactional_id: str = ''
    producer_id: int = 0
    producer_epoch: int = 0
    group_id: str = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AddOffsetsToTxnRequest:
        o = cls()
        if v <= 2:
            o.transactional_id = r.string()
        else:
            o.transactional_id = r.compact_string()
        o.producer_id = r.int64()
        o.producer_epoch = r.int16()
        if v <= 2:
            o.group_id = r.string()
        else:
            o.group_id = r.compact_string()
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 2:
            w.string(self.transactional_id)
        else:
            w.compact_string(self.transactional_id)
        w.int64(self.producer_id)
        w.int16(self.producer_epoch)
        if v <= 2:
            w.string(self.group_id)
        else:
            w.compact_string(self.group_id)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)
