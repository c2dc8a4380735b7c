"""ShareGroupCurrentMemberAssignmentValue (API key 14)

Generated from `schemas/coordinator-records/ShareGroupCurrentMemberAssignmentValue.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class TopicPartitions:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TopicPartitions:
        o = cls()
        o.topic_id = r.uuid_value()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [r.int32() for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.uuid_value(self.topic_id)
        w.compact_array_length(self.partitions)
        for partitions_item in self.partitions:
            w.int32(partitions_item)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ShareGroupCurrentMemberAssignmentValue(Message):
    NAME: ClassVar[str] = 'ShareGroupCurrentMemberAssignmentValue'
    API_KEY: ClassVar[int] = 14
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: int = 0
    assigned_partitions: list[TopicPartitions] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareGroupCurrentMemberAssignmentValue:
        o = cls()
        o.member_epoch = r.int32()
        o.previous_member_epoch = r.int32()
        o.state = r.int8()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array AssignedPartitions')
        else:
            o.assigned_partitions = [TopicPartitions.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.member_epoch)
        w.int32(self.previous_member_epoch)
        w.int8(self.state)
        w.compact_array_length(self.assigned_partitions)
        for assigned_partitions_item in self.assigned_partitions:
            assigned_partitions_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
