"""ShareGroupMetadataValue (API key 11)

Generated from `schemas/coordinator-records/ShareGroupMetadataValue.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ShareGroupMetadataValue(Message):
    NAME: ClassVar[str] = 'ShareGroupMetadataValue'
    API_KEY: ClassVar[int] = 11
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    epoch: int = 0
    metadata_hash: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareGroupMetadataValue:
        o = cls()
        o.epoch = r.int32()
        o.metadata_hash = r.int64()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.epoch)
        w.int64(self.metadata_hash)
        w.tagged_fields(self.unknown_tagged_fields)
