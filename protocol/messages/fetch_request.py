"""FetchRequest (API key 1)

Generated from `schemas/FetchRequest.json` by `python -m protocol.codegen`; do not edit.
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
    replica_id: int = -1
    replica_epoch: int = -1
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ReplicaState:
        o = cls()
        o.replica_id = r.int32()
        o.replica_epoch = r.int64()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.replica_id)
        w.int64(self.replica_epoch)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class FetchPartition:
    partition: int = 0
    current_leader_epoch: int = -1
    fetch_offset: int = 0
    last_fetched_epoch: int = -1
    log_start_offset: int = -1
    partition_max_bytes: int = 0
    replica_directory_id: uuid.UUID = ZERO_UUID
    high_watermark: int = 9223372036854775807
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> FetchPartition:
        o = cls()
        o.partition = r.int32()
        if v >= 9:
            o.current_leader_epoch = r.int32()
        o.fetch_offset = r.int64()
        if v >= 12:
            o.last_fetched_epoch = r.int32()
        if v >= 5:
            o.log_start_offset = r.int64()
        o.partition_max_bytes = r.int32()
        if v >= 12:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                if tag == 0 and v >= 17:
                    _r, r = r, sub
                    o.replica_directory_id = r.uuid_value()
                    r = _r
                elif tag == 1 and v >= 18:
                    _r, r = r, sub
                    o.high_watermark = r.int64()
                    r = _r
                else:
                    o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition)
        if v >= 9:
            w.int32(self.current_leader_epoch)
        w.int64(self.fetch_offset)
        if v >= 12:
            w.int32(self.last_fetched_epoch)
        if v >= 5:
            w.int64(self.log_start_offset)
        w.int32(self.partition_max_bytes)
        if v >= 12:
            tagged = list(self.unknown_tagged_fields)
            if v >= 17 and self.replica_directory_id != ZERO_UUID:
                t = Writer()
                t.uuid_value(self.replica_directory_id)
                tagged.append(RawTaggedField(0, bytes(t.buf)))
            if v >= 18 and self.high_watermark != 9223372036854775807:
                t = Writer()
                t.int64(self.high_watermark)
                tagged.append(RawTaggedField(1, bytes(t.buf)))
            tagged.sort(key=_tag_order)
            w.tagged_fields(tagged)


@dataclass(slots=True)
class FetchTopic:
    topic: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[FetchPartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> FetchTopic:
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
                o.partitions = [FetchPartition.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [FetchPartition.read(r, v) for _ in range(n)]
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
class ForgottenTopic:
    topic: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ForgottenTopic:
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
                o.partitions = [r.int32() for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [r.int32() for _ in range(n)]
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
                w.int32(partitions_item)
        else:
            w.compact_array_length(self.partitions)
            for partitions_item in self.partitions:
                w.int32(partitions_item)
        if v >= 12:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class FetchRequest(Message):
    NAME: ClassVar[str] = 'FetchRequest'
    API_KEY: ClassVar[int] = 1
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 18
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 12
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    cluster_id: str | None = None
    replica_id: int = -1
    replica_state: ReplicaState = field(default_factory=ReplicaState)
    max_wait_ms: int = 0
    min_bytes: int = 0
    max_bytes: int = 2147483647
    isolation_level: int = 0
    session_id: int = 0
    session_epoch: int = -1
    topics: list[FetchTopic] = field(default_factory=list)
    forgotten_topics_data: list[ForgottenTopic] = field(default_factory=list)
    rack_id: str = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> FetchRequest:
        o = cls()
        if v <= 14:
            o.replica_id = r.int32()
        o.max_wait_ms = r.int32()
        o.min_bytes = r.int32()
        if v >= 3:
            o.max_bytes = r.int32()
        if v >= 4:
            o.isolation_level = r.int8()
        if v >= 7:
            o.session_id = r.int32()
        if v >= 7:
            o.session_epoch = r.int32()
        if v <= 11:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [FetchTopic.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [FetchTopic.read(r, v) for _ in range(n)]
        if v >= 7:
            if v <= 11:
                n = r.array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array ForgottenTopicsData')
                else:
                    o.forgotten_topics_data = [ForgottenTopic.read(r, v) for _ in range(n)]
            else:
                n = r.compact_array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array ForgottenTopicsData')
                else:
                    o.forgotten_topics_data = [ForgottenTopic.read(r, v) for _ in range(n)]
        if v >= 11:
            if v <= 11:
                o.rack_id = r.string()
            else:
                o.rack_id = r.compact_string()
        if v >= 12:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                if tag == 0:
                    _r, r = r, sub
                    o.cluster_id = r.compact_nullable_string()
                    r = _r
                elif tag == 1 and v >= 15:
                    _r, r = r, sub
                    o.replica_state = ReplicaState.read(r, v)
                    r = _r
                else:
                    o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 14:
            w.int32(self.replica_id)
        w.int32(self.max_wait_ms)
        w.int32(self.min_bytes)
        if v >= 3:
            w.int32(self.max_bytes)
        if v >= 4:
            w.int8(self.isolation_level)
        if v >= 7:
            w.int32(self.session_id)
        if v >= 7:
            w.int32(self.session_epoch)
        if v <= 11:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        if v >= 7:
            if v <= 11:
                w.array_length(self.forgotten_topics_data)
                for forgotten_topics_data_item in self.forgotten_topics_data:
                    forgotten_topics_data_item.write(w, v)
            else:
                w.compact_array_length(self.forgotten_topics_data)
                for forgotten_topics_data_item in self.forgotten_topics_data:
                    forgotten_topics_data_item.write(w, v)
        if v >= 11:
            if v <= 11:
                w.string(self.rack_id)
            else:
                w.compact_string(self.rack_id)
        if v >= 12:
            tagged = list(self.unknown_tagged_fields)
            if self.cluster_id != None:
                t = Writer()
                t.compact_nullable_string(self.cluster_id)
                tagged.append(RawTaggedField(0, bytes(t.buf)))
            if v >= 15 and self.replica_state != ReplicaState():
                t = Writer()
                self.replica_state.write(t, v)
                tagged.append(RawTaggedField(1, bytes(t.buf)))
            tagged.sort(key=_tag_order)
            w.tagged_fields(tagged)
