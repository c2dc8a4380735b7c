"""ConsumerProtocolSubscription

Generated from `schemas/ConsumerProtocolSubscription.json` by `python -m protocol.codegen`; do not edit.
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
class ConsumerProtocolSubscription(Message):
    NAME: ClassVar[str] = 'ConsumerProtocolSubscription'
    API_KEY: ClassVar[int] = -1
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 3
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 32767
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    topics: list[str] = field(default_factory=list)
    user_data: bytes | None = None
    owned_partitions: list[TopicPartition] = field(default_factory=list)
    generation_id: int = -1
    rack_id: str | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ConsumerProtocolSubscription:
        o = cls()
        n = r.array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [r.string() for _ in range(n)]
        o.user_data = r.nullable_blob()
        if v >= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array OwnedPartitions')
            else:
                o.owned_partitions = [TopicPartition.read(r, v) for _ in range(n)]
        if v >= 2:
            o.generation_id = r.int32()
        if v >= 3:
            o.rack_id = r.nullable_string()
        return o

    def write(self, w: Writer, v: int) -> None:
        w.array_length(self.topics)
        for topics_item in self.topics:
            w.string(topics_item)
        w.nullable_blob(self.user_data)
        if v >= 1:
            w.array_length(self.owned_partitions)
            for owned_partitions_item in self.owned_partitions:
                owned_partitions_item.write(w, v)
        if v >= 2:
            w.int32(self.generation_id)
        if v >= 3:
            w.nullable_string(self.rack_id)
