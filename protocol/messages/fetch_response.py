"""FetchResponse (API key 1)

Generated from `schemas/FetchResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class EpochEndOffset:
    epoch: int = -1
    end_offset: int = -1
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> EpochEndOffset:
        o = cls()
        o.epoch = r.int32()
        o.end_offset = r.int64()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.epoch)
        w.int64(self.end_offset)
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
class SnapshotId:
    end_offset: int = -1
    epoch: int = -1
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> SnapshotId:
        o = cls()
        o.end_offset = r.int64()
        o.epoch = r.int32()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int64(self.end_offset)
        w.int32(self.epoch)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AbortedTransaction:
    producer_id: int = 0
    first_offset: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AbortedTransaction:
        o = cls()
        o.producer_id = r.int64()
        o.first_offset = r.int64()
        if v >= 12:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int64(self.producer_id)
        w.int64(self.first_offset)
        if v >= 12:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class PartitionData:
    partition_index: int = 0
    error_code: int = 0
    high_watermark: int = 0
    last_stable_offset: int = -1
    log_start_offset: int = -1
    diverging_epoch: EpochEndOffset = field(default_factory=EpochEndOffset)
    current_leader: LeaderIdAndEpoch = field(default_factory=LeaderIdAndEpoch)
    snapshot_id: SnapshotId = field(default_factory=SnapshotId)
    aborted_transactions: list[AbortedTransaction] | None = field(default_factory=list)
    preferred_read_replica: int = -1
    records: RecordsData | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> PartitionData:
        o = cls()
        o.partition_index = r.int32()
        o.error_code = r.int16()
        o.high_watermark = r.int64()
        if v >= 4:
            o.last_stable_offset = r.int64()
        if v >= 5:
            o.log_start_offset = r.int64()
        if v >= 4:
            if v <= 11:
                n = r.array_length()
                if n < 0:
                    o.aborted_transactions = None
                else:
                    o.aborted_transactions = [AbortedTransaction.read(r, v) for _ in range(n)]
            else:
                n = r.compact_array_length()
                if n < 0:
                    o.aborted_transactions = None
                else:
                    o.aborted_transactions = [AbortedTransaction.read(r, v) for _ in range(n)]
        if v >= 11:
            o.preferred_read_replica = r.int32()
        if v <= 11:
            o.records = r.nullable_records()
        else:
            o.records = r.compact_nullable_records()
        if v >= 12:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                if tag == 0:
                    _r, r = r, sub
                    o.diverging_epoch = EpochEndOffset.read(r, v)
                    r = _r
                elif tag == 1:
                    _r, r = r, sub
                    o.current_leader = LeaderIdAndEpoch.read(r, v)
                    r = _r
                elif tag == 2:
                    _r, r = r, sub
                    o.snapshot_id = SnapshotId.read(r, v)
                    r = _r
                else:
                    o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int16(self.error_code)
        w.int64(self.high_watermark)
        if v >= 4:
            w.int64(self.last_stable_offset)
        if v >= 5:
            w.int64(self.log_start_offset)
        if v >= 4:
            if v <= 11:
                w.array_length(self.aborted_transactions)
                if self.aborted_transactions is not None:
                    for aborted_transactions_item in self.aborted_transactions:
                        aborted_transactions_item.write(w, v)
            else:
                w.compact_array_length(self.aborted_transactions)
                if self.aborted_transactions is not None:
                    for aborted_transactions_item in self.aborted_transactions:
                        aborted_transactions_item.write(w, v)
        if v >= 11:
            w.int32(self.preferred_read_replica)
        if v <= 11:
            w.nullable_records(self.records)
        else:
            w.compact_nullable_records(self.records)
        if v >= 12:
            tagged = list(self.unknown_tagged_fields)
            if self.diverging_epoch != EpochEndOffset():
                t = Writer()
                self.diverging_epoch.write(t, v)
                tagged.append(RawTaggedField(0, bytes(t.buf)))
            if self.current_leader != LeaderIdAndEpoch():
                t = Writer()
                self.current_leader.write(t, v)
                tagged.append(RawTaggedField(1, bytes(t.buf)))
            if self.snapshot_id != SnapshotId():
                t = Writer()
                self.snapshot_id.write(t, v)
                tagged.append(RawTaggedField(2, bytes(t.buf)))
            tagged.sort(key=_tag_order)
            w.tagged_fields(tagged)


@dataclass(slots=True)
class FetchableTopicResponse:
    topic: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[PartitionData] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> FetchableTopicResponse:
        o = cls()
        if v <= 12:
            if v <= 11:
                o.topic = r.string()
            else:
                o.topic = r.compact_string()
        if v >= 13:
            o.topic_id = r.uuid_value()
        if v <= 11:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [PartitionData.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [PartitionData.read(r, v) for _ in range(n)]
        if v >= 12:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 12:
            if v <= 11:
                w.string(self.topic)
            else:
                w.compact_string(self.topic)
        if v >= 13:
            w.uuid_value(self.topic_id)
        if v <= 11:
            w.array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        else:
            w.compact_array_length(self.partitions)
            for partitions_item in self.partitions:
                partitions_item.write(w, v)
        if v >= 12:
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
class FetchResponse(Message):
    NAME: ClassVar[str] = 'FetchResponse'
    API_KEY: ClassVar[int] = 1
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 18
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 12
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    session_id: int = 0
    responses: list[FetchableTopicResponse] = field(default_factory=list)
    node_endpoints: list[NodeEndpoint] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> FetchResponse:
        o = cls()
        if v >= 1:
            o.throttle_time_ms = r.int32()
        if v >= 7:
            o.error_code = r.int16()
        if v >= 7:
            o.session_id = r.int32()
        if v <= 11:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Responses')
            else:
                o.responses = [FetchableTopicResponse.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Responses')
            else:
                o.responses = [FetchableTopicResponse.read(r, v) for _ in range(n)]
        if v >= 12:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                if tag == 0 and v >= 16:
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
        if v >= 1:
            w.int32(self.throttle_time_ms)
        if v >= 7:
            w.int16(self.error_code)
        if v >= 7:
            w.int32(self.session_id)
        if v <= 11:
            w.array_length(self.responses)
            for responses_item in self.responses:
                responses_item.write(w, v)
        else:
            w.compact_array_length(self.responses)
            for responses_item in self.responses:
                responses_item.write(w, v)
        if v >= 12:
            tagged = list(self.unknown_tagged_fields)
            if v >= 16 and self.node_endpoints != []:
                t = Writer()
                t.compact_array_length(self.node_endpoints)
                for node_endpoints_item in self.node_endpoints:
                    node_endpoints_item.write(t, v)
                tagged.append(RawTaggedField(0, bytes(t.buf)))
            tagged.sort(key=_tag_order)
            w.tagged_fields(tagged)
