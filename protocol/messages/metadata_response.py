"""MetadataResponse (API key 3)

Generated from `schemas/MetadataResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class MetadataResponseBroker:
    node_id: int = 0
    host: str = ''
    port: int = 0
    rack: str | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> MetadataResponseBroker:
        o = cls()
        o.node_id = r.int32()
        if v <= 8:
            o.host = r.string()
        else:
            o.host = r.compact_string()
        o.port = r.int32()
        if v >= 1:
            if v <= 8:
                o.rack = r.nullable_string()
            else:
                o.rack = r.compact_nullable_string()
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.node_id)
        if v <= 8:
            w.string(self.host)
        else:
            w.compact_string(self.host)
        w.int32(self.port)
        if v >= 1:
            if v <= 8:
                w.nullable_string(self.rack)
            else:
                w.compact_nullable_string(self.rack)
        if v >= 9:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class MetadataResponsePartition:
    error_code: int = 0
    partition_index: int = 0
    leader_id: int = 0
    leader_epoch: int = -1
    replica_nodes: list[int] = field(default_factory=list)
    isr_nodes: list[int] = field(default_factory=list)
    offline_replicas: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> MetadataResponsePartition:
        o = cls()
        o.error_code = r.int16()
        o.partition_index = r.int32()
        o.leader_id = r.int32()
        if v >= 7:
            o.leader_epoch = r.int32()
        if v <= 8:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array ReplicaNodes')
            else:
                o.replica_nodes = [r.int32() for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array ReplicaNodes')
            else:
                o.replica_nodes = [r.int32() for _ in range(n)]
        if v <= 8:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array IsrNodes')
            else:
                o.isr_nodes = [r.int32() for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array IsrNodes')
            else:
                o.isr_nodes = [r.int32() for _ in range(n)]
        if v >= 5:
            if v <= 8:
                n = r.array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array OfflineReplicas')
                else:
                    o.offline_replicas = [r.int32() for _ in range(n)]
            else:
                n = r.compact_array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array OfflineReplicas')
                else:
                    o.offline_replicas = [r.int32() for _ in range(n)]
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        w.int32(self.partition_index)
        w.int32(self.leader_id)
        if v >= 7:
            w.int32(self.leader_epoch)
        if v <= 8:
            w.array_length(self.replica_nodes)
            for replica_nodes_item in self.replica_nodes:
                w.int32(replica_nodes_item)
        else:
            w.compact_array_length(self.replica_nodes)
            for replica_nodes_item in self.replica_nodes:
                w.int32(replica_nodes_item)
        if v <= 8:
            w.array_length(self.isr_nodes)
            for isr_nodes_item in self.isr_nodes:
                w.int32(isr_nodes_item)
        else:
            w.compact_array_length(self.isr_nodes)
            for isr_nodes_item in self.isr_nodes:
                w.int32(isr_nodes_item)
        if v >= 5:
            if v <= 8:
                w.array_length(self.offline_replicas)
                for offline_replicas_item in self.offline_replicas:
                    w.int32(offline_replicas_item)
            else:
                w.compact_array_length(self.offline_replicas)
                for offline_replicas_item in self.offline_replicas:
                    w.int32(offline_replicas_item)
        if v >= 9:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class MetadataResponseTopic:
    error_code: int = 0
    name: str | None = ''
    topic_id: uuid.UUID = ZERO_UUID
    is_internal: bool = False
    partitions: list[MetadataResponsePartition] = field(default_factory=list)
    topic_authorized_operations: int = -2147483648
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> MetadataResponseTopic:
        o = cls()
        o.error_code = r.int16()
        if v <= 8:
            o.name = r.string()
        elif v >= 9 and v <= 11:
            o.name = r.compact_string()
        else:
            o.name = r.compact_nullable_string()
        if v >= 10:
            o.topic_id = r.uuid_value()
        if v >= 1:
            o.is_internal = r.boolean()
        if v <= 8:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [MetadataResponsePartition.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [MetadataResponsePartition.read(r, v) for _ in range(n)]
        if v >= 8:
            o.topic_authorized_operations = r.int32()
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        if v <= 8:
            w.string(self.name)
        elif v >= 9 and v <= 11:
            w.compact_string(self.name)
        else:
            w.compact_nullable_string(self.name)
        if v >= 10:
            w.uuid_value(self.topic_id)
        if v >= 1:
            w.boolean(self.is_internal)
        if v <= 8:
            w.array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        else:
            w.compact_array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        if v >= 8:
            w.int32(self.topic_authorized_operations)
        if v >= 9:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class MetadataResponse(Message):
    NAME: ClassVar[str] = 'MetadataResponse'
    API_KEY: ClassVar[int] = 3
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 13
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 9
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    brokers: list[MetadataResponseBroker] = field(default_factory=list)
    cluster_id: str | None = None
    controller_id: int = -1
    topics: list[MetadataResponseTopic] = field(default_factory=list)
    cluster_authorized_operations: int = -2147483648
    error_code: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> MetadataResponse:
        o = cls()
        if v >= 3:
            o.throttle_time_ms = r.int32()
        if v <= 8:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Brokers')
            else:
                o.brokers = [MetadataResponseBroker.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Brokers')
            else:
                o.brokers = [MetadataResponseBroker.read(r, v) for _ in range(n)]
        if v >= 2:
            if v <= 8:
                o.cluster_id = r.nullable_string()
            else:
                o.cluster_id = r.compact_nullable_string()
        if v >= 1:
            o.controller_id = r.int32()
        if v <= 8:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [MetadataResponseTopic.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [MetadataResponseTopic.read(r, v) for _ in range(n)]
        if v >= 8 and v <= 10:
            o.cluster_authorized_operations = r.int32()
        if v >= 13:
            o.error_code = r.int16()
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 3:
            w.int32(self.throttle_time_ms)
        if v <= 8:
            w.array_length(self.brokers)
            for brokers_item in self.brokers:
                brokers_item.write(w, v)
        else:
            w.compact_array_length(self.brokers)
            for brokers_item in self.brokers:
                brokers_item.write(w, v)
        if v >= 2:
            if v <= 8:
                w.nullable_string(self.cluster_id)
            else:
                w.compact_nullable_string(self.cluster_id)
        if v >= 1:
            w.int32(self.controller_id)
        if v <= 8:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        if v >= 8 and v <= 10:
            w.int32(self.cluster_authorized_operations)
        if v >= 13:
            w.int16(self.error_code)
        if v >= 9:
            w.tagged_fields(self.unknown_tagged_fields)
