"""ShareUpdateKey (API key 1)

Generated from `schemas/coordinator-records/ShareUpdateKey.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ShareUpdateKey(Message):
    NAME: ClassVar[str] = 'ShareUpdateKey'
    API_KEY: ClassVar[int] = 1
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 32767
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_id: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    partition: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareUpdateKey:
        o = cls()
        o.group_id = r.string()
        o.topic_id = r.uuid_value()
        o.partition = r.int32()
        return o

    def write(self, w: Writer, v: int) -> None:
        w.string(self.group_id)
        w.uuid_value(self.topic_id)
        w.int32(self.partition)
