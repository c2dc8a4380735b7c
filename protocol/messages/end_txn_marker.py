"""EndTxnMarker

Generated from `schemas/EndTxnMarker.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class EndTxnMarker(Message):
    NAME: ClassVar[str] = 'EndTxnMarker'
    API_KEY: ClassVar[int] = -1
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 32767
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    coordinator_epoch: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> EndTxnMarker:
        o = cls()
        o.coordinator_epoch = r.int32()
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.coordinator_epoch)
