"""DescribeQuorumResponse (API key 55)

Generated from `schemas/DescribeQuorumResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ReplicaState:
    replica_id: int = 0
    replica_directory_id: uuid.UUID = ZERO_UUID
    log_end_offset: int = 0
    last_fetch_timestamp: int = -1
    last_caught_up_timestamp: int = -1
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ReplicaState:
        o = cls()
        o.replica_id = r.int32()
        if v >= 2:
            o.replica_directory_id = r.uuid_value()
        o.log_end_offset = r.int64()
        if v >= 1:
            o.last_fetch_timestamp = r.int64()
        if v >= 1:
            o.last_caught_up_timestamp = r.int64()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.replica_id)
        if v >= 2:
            w.uuid_value(self.replica_directory_id)
        w.int64(self.log_end_offset)
        if v >= 1:
            w.int64(self.last_fetch_timestamp)
        if v >= 1:
            w.int64(self.last_caught_up_timestamp)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class PartitionData:
    partition_index: int = 0
    error_code: int = 0
    error_message: str | None = ''
    leader_id: int = 0
    leader_epoch: int = 0
    high_watermark: int = 0
    current_voters: list[ReplicaState] = field(default_factory=list)
    observers: list[ReplicaState] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> PartitionData:
        o = cls()
        o.partition_index = r.int32()
        o.error_code = r.int16()
        if v >= 2:
            o.error_message = r.compact_nullable_string()
        o.leader_id = r.int32()
        o.leader_epoch = r.int32()
        o.high_watermark = r.int64()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array CurrentVoters')
        else:
            o.current_voters = [ReplicaState.read(r, v) for _ in range(n)]
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Observers')
        else:
            o.observers = [ReplicaState.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int16(self.error_code)
        if v >= 2:
            w.compact_nullable_string(self.error_message)
        w.int32(self.leader_id)
        w.int32(self.leader_epoch)
        w.int64(self.high_watermark)
        w.compact_array_length(self.current_voters)
        for current_voters_item in self.current_voters:
            current_voters_item.write(w, v)
        w.compact_array_length(self.observers)
        for observers_item in self.observers:
            observers_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class TopicData:
    topic_name: str = ''
    partitions: list[PartitionData] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TopicData:
        o = cls()
        o.topic_name = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [PartitionData.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.topic_name)
        w.compact_array_length(self.partitions)
        for partitions_item in self.partitions:
            partitions_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class Listener:
    name: str = ''
    host: str = ''
    port: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> Listener:
        o = cls()
        o.name = r.compact_string()
        o.host = r.compact_string()
        o.port = r.uint16()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.name)
        w.compact_string(self.host)
        w.uint16(self.port)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class Node:
    node_id: int = 0
    listeners: list[Listener] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> Node:
        o = cls()
        o.node_id = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Listeners')
        else:
            o.listeners = [Listener.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.node_id)
        w.compact_array_length(self.listeners)
        for listeners_item in self.listeners:
            listeners_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeQuorumResponse(Message):
    NAME: ClassVar[str] = 'DescribeQuorumResponse'
    API_KEY: ClassVar[int] = 55
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    error_code: int = 0
    error_message: str | None = ''
    topics: list[TopicData] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeQuorumResponse:
        o = cls()
        o.error_code = r.int16()
        if v >= 2:
            o.error_message = r.compact_nullable_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [TopicData.read(r, v) for _ in range(n)]
        if v >= 2:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Nodes')
            else:
                o.nodes = [Node.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        if v >= 2:
            w.compact_nullable_string(self.error_message)
        w.compact_array_length(self.topics)
        for topics_item in self.topics:
            topics_item.write(w, v)
        if v >= 2:
            w.compact_array_length(self.nodes)
            for nodes_item in self.nodes:
                nodes_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
