"""ShareFetchResponse (API key 78)

Generated from `schemas/ShareFetchResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class LeaderIdAndEpoch:
    leader_id: int = 0
    leader_epoch: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> LeaderIdAndEpoch:
        o = cls()
        o.leader_id = r.int32()
        o.leader_epoch = r.int32()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.leader_id)
        w.int32(self.leader_epoch)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AcquiredRecords:
    first_offset: int = 0
    last_offset: int = 0
    delivery_count: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AcquiredRecords:
        o = cls()
        o.first_offset = r.int64()
        o.last_offset = r.int64()
        o.delivery_count = r.int16()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int64(self.first_offset)
        w.int64(self.last_offset)
        w.int16(self.delivery_count)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class PartitionData:
    partition_index: int = 0
    error_code: int = 0
    error_message: str | None = None
    acknowledge_error_code: int = 0
    acknowledge_error_message: str | None = None
    current_leader: LeaderIdAndEpoch = field(default_factory=LeaderIdAndEpoch)
    records: RecordsData | None = None
    acquired_records: list[AcquiredRecords] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> PartitionData:
        o = cls()
        o.partition_index = r.int32()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        o.acknowledge_error_code = r.int16()
        o.acknowledge_error_message = r.compact_nullable_string()
        o.current_leader = LeaderIdAndEpoch.read(r, v)
        o.records = r.compact_nullable_records()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array AcquiredRecords')
        else:
            o.acquired_records = [AcquiredRecords.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.int16(self.acknowledge_error_code)
        w.compact_nullable_string(self.acknowledge_error_message)
        self.current_leader.write(w, v)
        w.compact_nullable_records(self.records)
        w.compact_array_length(self.acquired_records)
        for acquired_records_item in self.acquired_records:
            acquired_records_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ShareFetchableTopicResponse:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[PartitionData] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareFetchableTopicResponse:
        o = cls()
        o.topic_id = r.uuid_value()
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
        w.uuid_value(self.topic_id)
        w.compact_array_length(self.partitions)
        for partitions_item in self.partitions:
            partitions_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class NodeEndpoint:
    node_id: int = 0
    host: str = ''
    port: int = 0
    rack: str | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> NodeEndpoint:
        o = cls()
        o.node_id = r.int32()
        o.host = r.compact_string()
        o.port = r.int32()
        o.rack = r.compact_nullable_string()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.node_id)
        w.compact_string(self.host)
        w.int32(self.port)
        w.compact_nullable_string(self.rack)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ShareFetchResponse(Message):
    NAME: ClassVar[str] = 'ShareFetchResponse'
    API_KEY: ClassVar[int] = 78
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    acquisition_lock_timeout_ms: int = 0
    responses: list[ShareFetchableTopicResponse] = field(default_factory=list)
    node_endpoints: list[NodeEndpoint] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareFetchResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        o.acquisition_lock_timeout_ms = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Responses')
        else:
            o.responses = [ShareFetchableTopicResponse.read(r, v) for _ in range(n)]
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array NodeEndpoints')
        else:
            o.node_endpoints = [NodeEndpoint.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.int32(self.acquisition_lock_timeout_ms)
        w.compact_array_length(self.responses)
        for responses_item in self.responses:
            responses_item.write(w, v)
        w.compact_array_length(self.node_endpoints)
        for node_endpoints_item in self.node_endpoints:
            node_endpoints_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
