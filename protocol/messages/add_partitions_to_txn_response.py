"""AddPartitionsToTxnResponse (API key 24)

Generated from `schemas/AddPartitionsToTxnResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class AddPartitionsToTxnPartitionResult:
    partition_index: int = 0
    partition_error_code: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AddPartitionsToTxnPartitionResult:
        o = cls()
        o.partition_index = r.int32()
        o.partition_error_code = r.int16()
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.partition_index)
        w.int16(self.partition_error_code)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AddPartitionsToTxnTopicResult:
    name: str = ''
    results_by_partition: list[AddPartitionsToTxnPartitionResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AddPartitionsToTxnTopicResult:
        o = cls()
        if v <= 2:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v <= 2:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array ResultsByPartition')
            else:
                o.results_by_partition = [AddPartitionsToTxnPartitionResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array ResultsByPartition')
            else:
                o.results_by_partition = [AddPartitionsToTxnPartitionResult.read(r, v) for _ in range(n)]
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 2:
            w.string(self.name)
        else:
            w.compact_string(self.name)
        if v <= 2:
            w.array_length(self.results_by_partition)
            for results_by_partition_item in self.results_by_partition:
                results_by_partition_item.write(w, v)
        else:
            w.compact_array_length(self.results_by_partition)
            for results_by_partition_item in self.results_by_partition:
                results_by_partition_item.write(w, v)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AddPartitionsToTxnResult:
    transactional_id: str = ''
    topic_results: list[AddPartitionsToTxnTopicResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AddPartitionsToTxnResult:
        o = cls()
        o.transactional_id = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array TopicResults')
        else:
            o.topic_results = [AddPartitionsToTxnTopicResult.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.transactional_id)
        w.compact_array_length(self.topic_results)
        for topic_results_item in self.topic_results:
            topic_results_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AddPartitionsToTxnResponse(Message):
    NAME: ClassVar[str] = 'AddPartitionsToTxnResponse'
    API_KEY: ClassVar[int] = 24
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 5
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 3
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    results_by_transaction: list[AddPartitionsToTxnResult] = field(default_factory=list)
    results_by_topic_v3_and_below: list[AddPartitionsToTxnTopicResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AddPartitionsToTxnResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        if v >= 4:
            o.error_code = r.int16()
        if v >= 4:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array ResultsByTransaction')
            else:
                o.results_by_transaction = [AddPartitionsToTxnResult.read(r, v) for _ in range(n)]
        if v <= 3:
            if v <= 2:
                n = r.array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array ResultsByTopicV3AndBelow')
                else:
                    o.results_by_topic_v3_and_below = [AddPartitionsToTxnTopicResult.read(r, v) for _ in range(n)]
            else:
                n = r.compact_array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array ResultsByTopicV3AndBelow')
                else:
                    o.results_by_topic_v3_and_below = [AddPartitionsToTxnTopicResult.read(r, v) for _ in range(n)]
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        if v >= 4:
            w.int16(self.error_code)
        if v >= 4:
            w.compact_array_length(self.results_by_transaction)
            for results_by_transaction_item in self.results_by_transaction:
                results_by_transaction_item.write(w, v)
        if v <= 3:
            if v <= 2:
                w.array_length(self.results_by_topic_v3_and_below)
                for results_by_topic_v3_and_below_item in self.results_by_topic_v3_and_below:
                    results_by_topic_v3_and_below_item.write(w, v)
            else:
                w.compact_array_length(self.results_by_topic_v3_and_below)
                for results_by_topic_v3_and_below_item in self.results_by_topic_v3_and_below:
                    results_by_topic_v3_and_below_item.write(w, v)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)
