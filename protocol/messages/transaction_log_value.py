"""TransactionLogValue (API key 0)

Generated from `schemas/coordinator-records/TransactionLogValue.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class PartitionsSchema:
    topic: str = ''
    partition_ids: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> PartitionsSchema:
        o = cls()
        if v <= 0:
            o.topic = r.string()
        else:
            o.topic = r.compact_string()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array PartitionIds')
            else:
                o.partition_ids = [r.int32() for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array PartitionIds')
            else:
                o.partition_ids = [r.int32() for _ in range(n)]
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 0:
            w.string(self.topic)
        else:
            w.compact_string(self.topic)
        if v <= 0:
            w.array_length(self.partition_ids)
            for partition_ids_item in self.partition_ids:
                w.int32(partition_ids_item)
        else:
            w.compact_array_length(self.partition_ids)
            for partition_ids_item in self.partition_ids:
                w.int32(partition_ids_item)
        if v >= 1:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class TransactionLogValue(Message):
    NAME: ClassVar[str] = 'TransactionLogValue'
    API_KEY: ClassVar[int] = 0
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 1
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    producer_id: int = 0
    previous_producer_id: int = -1
    next_producer_id: int = -1
    producer_epoch: int = 0
    next_producer_epoch: int = -1
    transaction_timeout_ms: int = 0
    transaction_status: int = 0
    transaction_partitions: list[PartitionsSchema] | None = field(default_factory=list)
    transaction_last_update_timestamp_ms: int = 0
    transaction_start_timestamp_ms: int = 0
    client_transaction_version: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> TransactionLogValue:
        o = cls()
        o.producer_id = r.int64()
        o.producer_epoch = r.int16()
        o.transaction_timeout_ms = r.int32()
        o.transaction_status = r.int8()
        if v <= 0:
            n = r.array_length()
            if n < 0:
                o.transaction_partitions = None
            else:
                o.transaction_partitions = [PartitionsSchema.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                o.transaction_partitions = None
            else:
                o.transaction_partitions = [PartitionsSchema.read(r, v) for _ in range(n)]
        o.transaction_last_update_timestamp_ms = r.int64()
        o.transaction_start_timestamp_ms = r.int64()
        if v >= 1:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                if tag == 0:
                    _r, r = r, sub
                    o.previous_producer_id = r.int64()
                    r = _r
                elif tag == 1:
                    _r, r = r, sub
                    o.next_producer_id = r.int64()
                    r = _r
                elif tag == 3:
                    _r, r = r, sub
                    o.next_producer_epoch = r.int16()
                    r = _r
                elif tag == 2:
                    _r, r = r, sub
                    o.client_transaction_version = r.int16()
                    r = _r
                else:
                    o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int64(self.producer_id)
        w.int16(self.producer_epoch)
        w.int32(self.transaction_timeout_ms)
        w.int8(self.transaction_status)
        if v <= 0:
            w.array_length(self.transaction_partitions)
            if self.transaction_partitions is not None:
                for transaction_partitions_item in self.transaction_partitions:
                    transaction_partitions_item.write(w, v)
        else:
            w.compact_array_length(self.transaction_partitions)
            if self.transaction_partitions is not None:
                for transaction_partitions_item in self.transaction_partitions:
                    transaction_partitions_item.write(w, v)
        w.int64(self.transaction_last_update_timestamp_ms)
        w.int64(self.transaction_start_timestamp_ms)
        if v >= 1:
            tagged = list(self.unknown_tagged_fields)
            if self.previous_producer_id != -1:
                t = Writer()
                t.int64(self.previous_producer_id)
                tagged.append(RawTaggedField(0, bytes(t.buf)))
            if self.next_producer_id != -1:
                t = Writer()
                t.int64(self.next_producer_id)
                tagged.append(RawTaggedField(1, bytes(t.buf)))
            if self.next_producer_epoch != -1:
                t = Writer()
                t.int16(self.next_producer_epoch)
                tagged.append(RawTaggedField(3, bytes(t.buf)))
            if self.client_transaction_version != 0:
                t = Writer()
                t.int16(self.client_transaction_version)
                tagged.append(RawTaggedField(2, bytes(t.buf)))
            tagged.sort(key=_tag_order)
            w.tagged_fields(tagged)
