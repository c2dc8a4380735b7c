"""ShareGroupMetadataKey (API key 11)

Generated from `schemas/coordinator-records/ShareGroupMetadataKey.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ShareGroupMetadataKey(Message):
    NAME: ClassVar[str] = 'ShareGroupMetadataKey'
    API_KEY: ClassVar[int] = 11
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 32767
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_id: str = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareGroupMetadataKey:
        o = cls()
        o.group_id = r.string()
        return o

    def write(self, w: Writer, v: int) -> None:
        w.string(self.group_id)
