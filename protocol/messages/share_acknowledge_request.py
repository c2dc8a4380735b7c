"""ShareAcknowledgeRequest (API key 79)

Generated from `schemas/ShareAcknowledgeRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class AcknowledgementBatch:
    first_offset: int = 0
    last_offset: int = 0
    acknowledge_types: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AcknowledgementBatch:
        o = cls()
        o.first_offset = r.int64()
        o.last_offset = r.int64()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array AcknowledgeTypes')
        else:
            o.acknowledge_types = [r.int8() for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int64(self.first_offset)
        w.int64(self.last_offset)
        w.compact_array_length(self.acknowledge_types)
        for acknowledge_types_item in self.acknowledge_types:
            w.int8(acknowledge_types_item)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AcknowledgePartition:
    partition_index: int = 0
    acknowledgement_batches: list[AcknowledgementBatch] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AcknowledgePartition:
        o = cls()
        o.partition_index = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array AcknowledgementBatches')
        else:
            o.acknowledgement_batches = [AcknowledgementBatch.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.compact_array_length(self.acknowledgement_batches)
        for acknowledgement_batches_item in self.acknowledgement_batches:
            acknowledgement_batches_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AcknowledgeTopic:
    topic_id: uuid.UUID = ZERO_UUID
    partitions: list[AcknowledgePartition] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AcknowledgeTopic:
        o = cls()
        o.topic_id = r.uuid_value()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Partitions')
        else:
            o.partitions = [AcknowledgePartition.read(r, v) for _ in range(n)]
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
class ShareAcknowledgeRequest(Message):
    NAME: ClassVar[str] = 'ShareAcknowledgeRequest'
    API_KEY: ClassVar[int] = 79
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_id: str | None = None
    member_id: str | None = ''
    share_session_epoch: int = 0
    is_renew_ack: bool = False
    topics: list[AcknowledgeTopic] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareAcknowledgeRequest:
        o = cls()
        o.group_id = r.compact_nullable_string()
        o.member_id = r.compact_nullable_string()
        o.share_session_epoch = r.int32()
        if v >= 2:
            o.is_renew_ack = r.boolean()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [AcknowledgeTopic.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_nullable_string(self.group_id)
        w.compact_nullable_string(self.member_id)
        w.int32(self.share_session_epoch)
        if v >= 2:
            w.boolean(self.is_renew_ack)
        w.compact_array_length(self.topics)
        for topics_item in self.topics:
            topics_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
