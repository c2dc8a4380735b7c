"""OffsetCommitKey (API key 1)

Generated from `schemas/coordinator-records/OffsetCommitKey.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class OffsetCommitKey(Message):
    NAME: ClassVar[str] = 'OffsetCommitKey'
    API_KEY: ClassVar[int] = 1
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 32767
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group: str = ''
    topic: str = ''
    partition: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetCommitKey:
        o = cls()
        o.group = r.string()
        o.topic = r.string()
        o.partition = r.int32()
        return o

    def write(self, w: Writer, v: int) -> None:
        w.string(self.group)
        w.string(self.topic)
        w.int32(self.partition)
