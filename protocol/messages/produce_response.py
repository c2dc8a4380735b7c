"""ProduceResponse (API key 0)

Generated from `schemas/ProduceResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class BatchIndexAndErrorMessage:
    batch_index: int = 0
    batch_index_error_message: str | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> BatchIndexAndErrorMessage:
        o = cls()
        o.batch_index = r.int32()
        if v <= 8:
            o.batch_index_error_message = r.nullable_string()
        else:
            o.batch_index_error_message = r.compact_nullable_string()
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.batch_index)
        if v <= 8:
            w.nullable_string(self.batch_index_error_message)
        else:
            w.compact_nullable_string(self.batch_index_error_message)
        if v >= 9:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class LeaderIdAndEpoch:
    leader_id: int = -1
    leader_epoch: int = -1
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
class PartitionProduceResponse:
    index: int = 0
    error_code: int = 0
    base_offset: int = 0
    log_append_time_ms: int = -1
    log_start_offset: int = -1
    record_errors: list[BatchIndexAndErrorMessage] = field(default_factory=list)
    error_message: str | None = None
    current_leader: LeaderIdAndEpoch = field(default_factory=LeaderIdAndEpoch)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> PartitionProduceResponse:
        o = cls()
        o.index = r.int32()
        o.error_code = r.int16()
        o.base_offset = r.int64()
        if v >= 2:
            o.log_append_time_ms = r.int64()
        if v >= 5:
            o.log_start_offset = r.int64()
        if v >= 8:
            if v <= 8:
                n = r.array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array RecordErrors')
                else:
                    o.record_errors = [BatchIndexAndErrorMessage.read(r, v) for _ in range(n)]
            else:
                n = r.compact_array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array RecordErrors')
                else:
                    o.record_errors = [BatchIndexAndErrorMessage.read(r, v) for _ in range(n)]
        if v >= 8:
            if v <= 8:
                o.error_message = r.nullable_string()
            else:
                o.error_message = r.compact_nullable_string()
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                if tag == 0 and v >= 10:
                    _r, r = r, sub
                    o.current_leader = LeaderIdAndEpoch.read(r, v)
                    r = _r
                else:
                    o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.index)
        w.int16(self.error_code)
        w.int64(self.base_offset)
        if v >= 2:
            w.int64(self.log_append_time_ms)
        if v >= 5:
            w.int64(self.log_start_offset)
        if v >= 8:
            if v <= 8:
                w.array_length(self.record_errors)
                for record_errors_item in self.record_errors:
                    record_errors_item.write(w, v)
            else:
                w.compact_array_length(self.record_errors)
                for record_errors_item in self.record_errors:
                    record_errors_item.write(w, v)
        if v >= 8:
            if v <= 8:
                w.nullable_string(self.error_message)
            else:
                w.compact_nullable_string(self.error_message)
        if v >= 9:
            tagged = list(self.unknown_tagged_fields)
            if v >= 10 and self.current_leader != LeaderIdAndEpoch():
                t = Writer()
                self.current_leader.write(t, v)
                tagged.append(RawTaggedField(0, bytes(t.buf)))
            tagged.sort(key=_tag_order)
            w.tagged_fields(tagged)


@dataclass(slots=True)
class TopicProduceResponse:
    name: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    partition_responses: list[PartitionProduceResponse] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TopicProduceResponse:
        o = cls()
        if v <= 12:
            if v <= 8:
                o.name = r.string()
            else:
                o.name = r.compact_string()
        if v >= 13:
            o.topic_id = r.uuid_value()
        if v <= 8:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array PartitionResponses')
            else:
                o.partition_responses = [PartitionProduceResponse.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array PartitionResponses')
            else:
                o.partition_responses = [PartitionProduceResponse.read(r, v) for _ in range(n)]
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 12:
            if v <= 8:
                w.string(self.name)
            else:
                w.compact_string(self.name)
        if v >= 13:
            w.uuid_value(self.topic_id)
        if v <= 8:
            w.array_length(self.partition_responses)
            for partition_responses_item in self.partition_responses:
                partition_responses_item.write(w, v)
        else:
            w.compact_array_length(self.partition_responses)
            for partition_responses_item in self.partition_responses:
                partition_responses_item.write(w, v)
        if v >= 9:
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
class ProduceResponse(Message):
    NAME: ClassVar[str] = 'ProduceResponse'
    API_KEY: ClassVar[int] = 0
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 13
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 9
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    responses: list[TopicProduceResponse] = field(default_factory=list)
    throttle_time_ms: int = 0
    node_endpoints: list[NodeEndpoint] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ProduceResponse:
        o = cls()
        if v <= 8:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Responses')
            else:
                o.responses = [TopicProduceResponse.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Responses')
            else:
                o.responses = [TopicProduceResponse.read(r, v) for _ in range(n)]
        if v >= 1:
            o.throttle_time_ms = r.int32()
        if v >= 9:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                if tag == 0 and v >= 10:
                    _r, r = r, sub
                    n = r.compact_array_length()
                    if n < 0:
                        raise InvalidValueError('null in non-nullable array NodeEndpoints')
                    else:
                        o.node_endpoints = [NodeEndpoint.read(r, v) for _ in range(n)]
                    r = _r
                else:
                    o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 8:
            w.array_length(self.responses)
            for responses_item in self.responses:
                responses_item.write(w, v)
        else:
            w.compact_array_length(self.responses)
            for responses_item in self.responses:
                responses_item.write(w, v)
        if v >= 1:
            w.int32(self.throttle_time_ms)
        if v >= 9:
            tagged = list(self.unknown_tagged_fields)
            if v >= 10 and self.node_endpoints != []:
                t = Writer()
                t.compact_array_length(self.node_endpoints)
                for node_endpoints_item in self.node_endpoints:
                    node_endpoints_item.write(t, v)
                tagged.append(RawTaggedField(0, bytes(t.buf)))
            tagged.sort(key=_tag_order)
            w.tagged_fields(tagged)
