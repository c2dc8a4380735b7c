"""ShareGroupDescribeResponse (API key 77)

Generated from `schemas/ShareGroupDescribeResponse.json` by `python -m protocol.codegen`; do not edit.
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
    topic_name: str = ''
    partitions: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TopicPartitions:
        o = cls()
        o.topic_id = r.uuid_value()
        o.topic_name = r.compact_string()
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
        w.compact_string(self.topic_name)
        w.compact_array_length(self.partitions)
        for partitions_item in self.partitions:
            w.int32(partitions_item)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class Assignment:
    topic_partitions: list[TopicPartitions] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> Assignment:
        o = cls()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array TopicPartitions')
        else:
            o.topic_partitions = [TopicPartitions.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_array_length(self.topic_partitions)
        for topic_partitions_item in self.topic_partitions:
            topic_partitions_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class Member:
    member_id: str = ''
    rack_id: str | None = None
    member_epoch: int = 0
    client_id: str = ''
    client_host: str = ''
    subscribed_topic_names: list[str] = field(default_factory=list)
    assignment: Assignment = field(default_factory=Assignment)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> Member:
        o = cls()
        o.member_id = r.compact_string()
        o.rack_id = r.compact_nullable_string()
        o.member_epoch = r.int32()
        o.client_id = r.compact_string()
        o.client_host = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array SubscribedTopicNames')
        else:
            o.subscribed_topic_names = [r.compact_string() for _ in range(n)]
        o.assignment = Assignment.read(r, v)
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.member_id)
        w.compact_nullable_string(self.rack_id)
        w.int32(self.member_epoch)
        w.compact_string(self.client_id)
        w.compact_string(self.client_host)
        w.compact_array_length(self.subscribed_topic_names)
        for subscribed_topic_names_item in self.subscribed_topic_names:
            w.compact_string(subscribed_topic_names_item)
        self.assignment.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribedGroup:
    error_code: int = 0
    error_message: str | None = None
    group_id: str = ''
    group_state: str = ''
    group_epoch: int = 0
    assignment_epoch: int = 0
    assignor_name: str = ''
    members: list[Member] = field(default_factory=list)
    authorized_operations: int = -2147483648
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribedGroup:
        o = cls()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        o.group_id = r.compact_string()
        o.group_state = r.compact_string()
        o.group_epoch = r.int32()
        o.assignment_epoch = r.int32()
        o.assignor_name = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Members')
        else:
            o.members = [Member.read(r, v) for _ in range(n)]
        o.authorized_operations = r.int32()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.compact_string(self.group_id)
        w.compact_string(self.group_state)
        w.int32(self.group_epoch)
        w.int32(self.assignment_epoch)
        w.compact_string(self.assignor_name)
        w.compact_array_length(self.members)
        for members_item in self.members:
            members_item.write(w, v)
        w.int32(self.authorized_operations)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ShareGroupDescribeResponse(Message):
    NAME: ClassVar[str] = 'ShareGroupDescribeResponse'
    API_KEY: ClassVar[int] = 77
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    groups: list[DescribedGroup] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareGroupDescribeResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Groups')
        else:
            o.groups = [DescribedGroup.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.compact_array_length(self.groups)
        for groups_item in self.groups:
            groups_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
