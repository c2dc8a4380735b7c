"""ConsumerProtocolAssignment

Generated from `schemas/ConsumerProtocolAssignment.json` by `python -m protocol.codegen`; do not edit.
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
    topic: str = ''
    partitions: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TopicPartition:
        o = cls()
        o.topic = r.string()
        n = r.array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [r.int32() for _ in range(n)]
        return o

    def write(self, w: Writer, v: int) -> None:
        w.string(self.topic)
        w.array_length(self.partitions)
        for partitions_item in self.partitions:
            w.int32(partitions_item)


@dataclass(slots=True)
class ConsumerProtocolAssignment(Message):
    NAME: ClassVar[str] = 'ConsumerProtocolAssignment'
    API_KEY: ClassVar[int] = -1
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 3
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 32767
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    assigned_partitions: list[TopicPartition] = field(default_factory=list)
    user_data: bytes | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ConsumerProtocolAssignment:
        o = cls()
        n = r.array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array AssignedPartitions')
        else:
            o.assigned_partitions = [TopicPartition.read(r, v) for _ in range(n)]
        o.user_data = r.nullable_blob()
        return o

    def write(self, w: Writer, v: int) -> None:
        w.array_length(self.assigned_partitions)
        for assigned_partitions_item in self.assigned_partitions:
            assigned_partitions_item.write(w, v)
        w.nullable_blob(self.user_data)
