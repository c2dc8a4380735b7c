"""ConsumerGroupHeartbeatRequest (API key 68)

Generated from `schemas/ConsumerGroupHeartbeatRequest.json` by `python -m protocol.codegen`; do not edit.
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
class ConsumerGroupHeartbeatRequest(Message):
    NAME: ClassVar[str] = 'ConsumerGroupHeartbeatRequest'
    API_KEY: ClassVar[int] = 68
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_id: str = ''
    member_id: str = ''
    member_epoch: int = 0
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    subscribed_topic_names: list[str] | None = None
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    topic_partitions: list[TopicPartitions] | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ConsumerGroupHeartbeatRequest:
        o = cls()
        o.group_id = r.compact_string()
        o.member_id = r.compact_string()
        o.member_epoch = r.int32()
        o.instance_id = r.compact_nullable_string()
        o.rack_id = r.compact_nullable_string()
        o.rebalance_timeout_ms = r.int32()
        n = r.compact_array_length()
        if n < 0:
            o.subscribed_topic_names = None
        else:
            o.subscribed_topic_names = [r.compact_string() for _ in range(n)]
        if v >= 1:
            o.subscribed_topic_regex = r.compact_nullable_string()
        o.server_assignor = r.compact_nullable_string()
        n = r.compact_array_length()
        if n < 0:
            o.topic_partitions = None
        else:
            o.topic_partitions = [TopicPartitions.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.group_id)
        w.compact_string(self.member_id)
        w.int32(self.member_epoch)
        w.compact_nullable_string(self.instance_id)
        w.compact_nullable_string(self.rack_id)
        w.int32(self.rebalance_timeout_ms)
        w.compact_array_length(self.subscribed_topic_names)
        if self.subscribed_topic_names is not None:
            for subscribed_topic_names_item in self.subscribed_topic_names:
                w.compact_string(subscribed_topic_names_item)
        if v >= 1:
            w.compact_nullable_string(self.subscribed_topic_regex)
        w.compact_nullable_string(self.server_assignor)
        w.compact_array_length(self.topic_partitions)
        if self.topic_partitions is not None:
            for topic_partitions_item in self.topic_partitions:
                topic_partitions_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
