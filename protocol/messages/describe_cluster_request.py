"""DescribeClusterRequest (API key 60)

Generated from `schemas/DescribeClusterRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribeClusterRequest(Message):
    NAME: ClassVar[str] = 'DescribeClusterRequest'
    API_KEY: ClassVar[int] = 60
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    include_cluster_authorized_operations: bool = False
    endpoint_type: int = 1
    include_fenced_brokers: bool = False
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeClusterRequest:
        o = cls()
        o.include_cluster_authorized_operations = r.boolean()
        if v >= 1:
            o.endpoint_type = r.int8()
        if v >= 2:
            o.include_fenced_brokers = r.boolean()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.boolean(self.include_cluster_authorized_operations)
        if v >= 1:
            w.int8(self.endpoint_type)
        if v >= 2:
            w.boolean(self.include_fenced_brokers)
        w.tagged_fields(self.unknown_tagged_fields)
