"""AddPartitionsToTxnRequest (API key 24)

Generated from `schemas/AddPartitionsToTxnRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class AddPartitionsToTxnTopic:
    name: str = ''
    partitions: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AddPartitionsToTxnTopic:
        o = cls()
        if v <= 2:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v <= 2:
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
            w.array_length(self.partitions)
            for partitions_item in self.partitions:
                w.int32(partitions_item)
        else:
            w.compact_array_length(self.partitions)
            for partitions_item in self.partitions:
                w.int32(partitions_item)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AddPartitionsToTxnTransaction:
    transactional_id: str = ''
    producer_id: int = 0
    producer_epoch: int = 0
    verify_only: bool = False
    topics: list[AddPartitionsToTxnTopic] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AddPartitionsToTxnTransaction:
        o = cls()
        o.transactional_id = r.compact_string()
        o.producer_id = r.int64()
        o.producer_epoch = r.int16()
        o.verify_only = r.boolean()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Topics')
        else:
            o.topics = [AddPartitionsToTxnTopic.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.transactional_id)
        w.int64(self.producer_id)
        w.int16(self.producer_epoch)
        w.boolean(self.verify_only)
        w.compact_array_length(self.topics)
        for topics_item in self.topics:
            topics_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AddPartitionsToTxnRequest(Message):
    NAME: ClassVar[str] = 'AddPartitionsToTxnRequest'
    API_KEY: ClassVar[int] = 24
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 5
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 3
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    transactions: list[AddPartitionsToTxnTransaction] = field(default_factory=list)
    v3_and_below_transactional_id: str = ''
    v3_and_below_producer_id: int = 0
    v3_and_below_producer_epoch: int = 0
    v3_and_below_topics: list[AddPartitionsToTxnTopic] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AddPartitionsToTxnRequest:
        o = cls()
        if v >= 4:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Transactions')
            else:
                o.transactions = [AddPartitionsToTxnTransaction.read(r, v) for _ in range(n)]
        if v <= 3:
            if v <= 2:
                o.v3_and_below_transactional_id = r.string()
            else:
                o.v3_and_below_transactional_id = r.compact_string()
        if v <= 3:
            o.v3_and_below_producer_id = r.int64()
        if v <= 3:
            o.v3_and_below_producer_epoch = r.int16()
        if v <= 3:
            if v <= 2:
                n = r.array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array V3AndBelowTopics')
                else:
                    o.v3_and_below_topics = [AddPartitionsToTxnTopic.read(r, v) for _ in range(n)]
            else:
                n = r.compact_array_length()
                if n < 0:
                    raise InvalidValueError('null in non-nullable array V3AndBelowTopics')
                else:
                    o.v3_and_below_topics = [AddPartitionsToTxnTopic.read(r, v) for _ in range(n)]
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 4:
            w.compact_array_length(self.transactions)
            for transactions_item in self.transactions:
                transactions_item.write(w, v)
        if v <= 3:
            if v <= 2:
                w.string(self.v3_and_below_transactional_id)
            else:
                w.compact_string(self.v3_and_below_transactional_id)
        if v <= 3:
            w.int64(self.v3_and_below_producer_id)
        if v <= 3:
            w.int16(self.v3_and_below_producer_epoch)
        if v <= 3:
            if v <= 2:
                w.array_length(self.v3_and_below_topics)
                for v3_and_below_topics_item in self.v3_and_below_topics:
                    v3_and_below_topics_item.write(w, v)
            else:
                w.compact_array_length(self.v3_and_below_topics)
                for v3_and_below_topics_item in self.v3_and_below_topics:
                    v3_and_below_topics_item.write(w, v)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)
