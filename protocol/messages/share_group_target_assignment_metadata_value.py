"""ShareGroupTargetAssignmentMetadataValue (API key 12)

Generated from `schemas/coordinator-records/ShareGroupTargetAssignmentMetadataValue.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ShareGroupTargetAssignmentMetadataValue(Message):
    NAME: ClassVar[str] = 'ShareGroupTargetAssignmentMetadataValue'
    API_KEY: ClassVar[int] = 12
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    assignment_epoch: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareGroupTargetAssignmentMetadataValue:
        o = cls()
        o.assignment_epoch = r.int32()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.assignment_epoch)
        w.tagged_fields(self.unknown_tagged_fields)
