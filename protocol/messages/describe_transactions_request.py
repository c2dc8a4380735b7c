"""DescribeTransactionsRequest (API key 65)

Generated from `schemas/DescribeTransactionsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DescribeTransactionsRequest(Message):
    NAME: ClassVar[str] = 'DescribeTransactionsRequest'
    API_KEY: ClassVar[int] = 65
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    transactional_ids: list[str] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DescribeTransactionsRequest:
        o = cls()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array TransactionalIds')
        else:
            o.transactional_ids = [r.compact_string() for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_array_length(self.transactional_ids)
        for transactional_ids_item in self.transactional_ids:
            w.compact_string(transactional_ids_item)
        w.tagged_fields(self.unknown_tagged_fields)
