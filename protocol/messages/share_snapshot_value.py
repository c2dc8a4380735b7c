"""ShareSnapshotValue (API key 0)

Generated from `schemas/coordinator-records/ShareSnapshotValue.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class StateBatch:
    first_offset: int = 0
    last_offset: int = 0
    delivery_state: int = 0
    delivery_count: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> StateBatch:
        o = cls()
        o.first_offset = r.int64()
        o.last_offset = r.int64()
        o.delivery_state = r.int8()
        o.delivery_count = r.int16()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int64(self.first_offset)
        w.int64(self.last_offset)
        w.int8(self.delivery_state)
        w.int16(self.delivery_count)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ShareSnapshotValue(Message):
    NAME: ClassVar[str] = 'ShareSnapshotValue'
    API_KEY: ClassVar[int] = 0
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    snapshot_epoch: int = 0
    state_epoch: int = 0
    leader_epoch: int = 0
    start_offset: int = 0
    delivery_complete_count: int = -1
    create_timestamp: int = 0
    write_timestamp: int = 0
    state_batches: list[StateBatch] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareSnapshotValue:
        o = cls()
        o.snapshot_epoch = r.int32()
        o.state_epoch = r.int32()
        o.leader_epoch = r.int32()
        o.start_offset = r.int64()
        o.create_timestamp = r.int64()
        o.write_timestamp = r.int64()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array StateBatches')
        else:
            o.state_batches = [StateBatch.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            if tag == 0:
                _r, r = r, sub
                o.delivery_complete_count = r.int32()
                r = _r
            else:
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.snapshot_epoch)
        w.int32(self.state_epoch)
        w.int32(self.leader_epoch)
        w.int64(self.start_offset)
        w.int64(self.create_timestamp)
        w.int64(self.write_timestamp)
        w.compact_array_length(self.state_batches)
        for state_batches_item in self.state_batches:
            state_batches_item.write(w, v)
        tagged = list(self.unknown_tagged_fields)
        if self.delivery_complete_count != -1:
            t = Writer()
            t.int32(self.delivery_complete_count)
            tagged.append(RawTaggedField(0, bytes(t.buf)))
        tagged.sort(key=_tag_order)
        w.tagged_fields(tagged)
