"""UnregisterBrokerRequest (API key 64)

Generated from `schemas/UnregisterBrokerRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class UnregisterBrokerRequest(Message):
    NAME: ClassVar[str] = 'UnregisterBrokerRequest'
    API_KEY: ClassVar[int] = 64
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    broker_id: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> UnregisterBrokerRequest:
        o = cls()
        o.broker_id = r.int32()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.broker_id)
        w.tagged_fields(self.unknown_tagged_fields)
