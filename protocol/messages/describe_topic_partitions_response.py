"""DescribeTopicPartitionsResponse (API key 75)

Generated from `schemas/DescribeTopicPartitionsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribeTopicPartitionsResponsePartition:
    error_code: int = 0
    partition_index: int = 0
    leader_id: int = 0
    leader_epoch: int = -1
    replica_nodes: list[int] = field(default_factory=list)
    isr_nodes: list[int] = field(default_factory=list)
    eligible_leader_replicas: list[int] | None = None
    last_known_elr: list[int] | None = None
    offline_replicas: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeTopicPartitionsResponsePartition:
        o = cls()
        o.error_code = r.int16()
        o.partition_index = r.int32()
        o.leader_id = r.int32()
        o.leader_epoch = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array ReplicaNodes')
        else:
            o.replica_nodes = [r.int32() for _ in range(n)]
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array IsrNodes')
        else:
            o.isr_nodes = [r.int32() for _ in range(n)]
        n = r.compact_array_length()
        if n < 0:
            o.eligible_leader_replicas = None
        else:
            o.eligible_leader_replicas = [r.int32() for _ in range(n)]
        n = r.compact_array_length()
        if n < 0:
            o.last_known_elr = None
        else:
            o.last_known_elr = [r.int32() for _ in range(n)]
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array OfflineReplicas')
        else:
            o.offline_replicas = [r.int32() for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        w.int32(self.partition_index)
        w.int32(self.leader_id)
        w.int32(self.leader_epoch)
        w.compact_array_length(self.replica_nodes)
        for replica_nodes_item in self.replica_nodes:
            w.int32(replica_nodes_item)
        w.compact_array_length(self.isr_nodes)
        for isr_nodes_item in self.isr_nodes:
            w.int32(isr_nodes_item)
        w.compact_array_length(self.eligible_leader_replicas)
        if self.eligible_leader_replicas is not None:
            for eligible_leader_replicas_item in self.eligible_leader_replicas:
                w.int32(eligible_leader_replicas_item)
        w.compact_array_length(self.last_known_elr)
        if self.last_known_elr is not None:
            for last_known_elr_item in self.last_known_elr:
                w.int32(last_known_elr_item)
        w.compact_array_length(self.offline_replicas)
        for offline_replicas_item in self.offline_replicas:
            w.int32(offline_replicas_item)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeTopicPartitionsResponseTopic:
    error_code: int = 0
    name: str | None = ''
    topic_id: uuid.UUID = ZERO_UUID
    is_internal: bool = False
    partitions: list[DescribeTopicPartitionsResponsePartition] = field(default_factory=list)
    topic_authorized_operations: int = -2147483648
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeTopicPartitionsResponseTopic:
        o = cls()
        o.error_code = r.int16()
        o.name = r.compact_nullable_string()
        o.topic_id = r.uuid_value()
        o.is_internal = r.boolean()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [DescribeTopicPartitionsResponsePartition.read(r, v) for _ in range(n)]
        o.topic_authorized_operations = r.int32()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        w.compact_nullable_string(self.name)
        w.uuid_value(self.topic_id)
        w.boolean(self.is_internal)
        w.compact_array_length(self.partitions)
        for partitions_item in self.partitions:
            partitions_item.write(w, v)
        w.int32(self.topic_authorized_operations)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class Cursor:
    topic_name: str = ''
    partition_index: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> Cursor:
        o = cls()
        o.topic_name = r.compact_string()
        o.partition_index = r.int32()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.topic_name)
        w.int32(self.partition_index)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeTopicPartitionsResponse(Message):
    NAME: ClassVar[str] = 'DescribeTopicPartitionsResponse'
    API_KEY: ClassVar[int] = 75
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    topics: list[DescribeTopicPartitionsResponseTopic] = field(default_factory=list)
    next_cursor: Cursor | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeTopicPartitionsResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [DescribeTopicPartitionsResponseTopic.read(r, v) for _ in range(n)]
        o.next_cursor = Cursor.read(r, v) if r.struct_presence() else None
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.compact_array_length(self.topics)
        for topics_item in self.topics:
            topics_item.write(w, v)
        if self.next_cursor is None:
            w.int8(-1)
        else:
            w.int8(1)
            self.next_cursor.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
