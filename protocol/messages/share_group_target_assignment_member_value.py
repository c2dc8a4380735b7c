"""ShareGroupTargetAssignmentMemberValue (API key 13)

Generated from `schemas/coordinator-records/ShareGroupTargetAssignmentMemberValue.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class TopicPartition:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TopicPartition:
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
class ShareGroupTargetAssignmentMemberValue(Message):
    NAME: ClassVar[str] = 'ShareGroupTargetAssignmentMemberValue'
    API_KEY: ClassVar[int] = 13
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    topic_partitions: list[TopicPartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareGroupTargetAssignmentMemberValue:
        o = cls()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array TopicPartitions')
        else:
            o.topic_partitions = [TopicPartition.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_array_length(self.topic_partitions)
        for topic_partitions_item in self.topic_partitions:
            topic_partitions_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
