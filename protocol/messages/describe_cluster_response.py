"""DescribeClusterResponse (API key 60)

Generated from `schemas/DescribeClusterResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribeClusterBroker:
    broker_id: int = 0
    host: str = ''
    port: int = 0
    rack: str | None = None
    is_fenced: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeClusterBroker:
        o = cls()
        o.broker_id = r.int32()
        o.host = r.compact_string()
        o.port = r.int32()
        o.rack = r.compact_nullable_string()
        if v >= 2:
            o.is_fenced = r.boolean()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.broker_id)
        w.compact_string(self.host)
        w.int32(self.port)
        w.compact_nullable_string(self.rack)
        if v >= 2:
            w.boolean(self.is_fenced)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DescribeClusterResponse(Message):
    NAME: ClassVar[str] = 'DescribeClusterResponse'
    API_KEY: ClassVar[int] = 60
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    endpoint_type: int = 1
    cluster_id: str = ''
    controller_id: int = -1
    brokers: list[DescribeClusterBroker] = field(default_factory=list)
    cluster_authorized_operations: int = -2147483648
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeClusterResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        if v >= 1:
            o.endpoint_type = r.int8()
        o.cluster_id = r.compact_string()
        o.controller_id = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Brokers')
        else:
            o.brokers = [DescribeClusterBroker.read(r, v) for _ in range(n)]
        o.cluster_authorized_operations = r.int32()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        if v >= 1:
            w.int8(self.endpoint_type)
        w.compact_string(self.cluster_id)
        w.int32(self.controller_id)
        w.compact_array_length(self.brokers)
        for brokers_item in self.brokers:
            brokers_item.write(w, v)
        w.int32(self.cluster_authorized_operations)
        w.tagged_fields(self.unknown_tagged_fields)
