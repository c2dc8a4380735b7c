"""OffsetCommitValue (API key 1)

Generated from `schemas/coordinator-records/OffsetCommitValue.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class OffsetCommitValue(Message):
    NAME: ClassVar[str] = 'OffsetCommitValue'
    API_KEY: ClassVar[int] = 1
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 4
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 4
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    offset: int = 0
    leader_epoch: int = -1
    metadata: str = ''
    commit_timestamp: int = 0
    expire_timestamp: int = -1
    topic_id: uuid.UUID = ZERO_UUID
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> OffsetCommitValue:
        o = cls()
        o.offset = r.int64()
        if v >= 3:
            o.leader_epoch = r.int32()
        if v <= 3:
            o.metadata = r.string()
        else:
            o.metadata = r.compact_string()
        o.commit_timestamp = r.int64()
        if v >= 1 and v <= 1:
            o.expire_timestamp = r.int64()
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                if tag == 0:
                    _r, r = r, sub
                    o.topic_id = r.uuid_value()
                    r = _r
                else:
                    o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int64(self.offset)
        if v >= 3:
            w.int32(self.leader_epoch)
        if v <= 3:
            w.string(self.metadata)
        else:
            w.compact_string(self.metadata)
        w.int64(self.commit_timestamp)
        if v >= 1 and v <= 1:
            w.int64(self.expire_timestamp)
        if v >= 4:
            tagged = list(self.unknown_tagged_fields)
            if self.topic_id != ZERO_UUID:
                t = Writer()
                t.uuid_value(self.topic_id)
                tagged.append(RawTaggedField(0, bytes(t.buf)))
            tagged.sort(key=_tag_order)
            w.tagged_fields(tagged)
