"""DeleteTopicsResponse (API key 20)

Generated from `schemas/DeleteTopicsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DeletableTopicResult:
    name: str | None = ''
    topic_id: uuid.UUID = ZERO_UUID
    error_code: int = 0
    error_message: str | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DeletableTopicResult:
        o = cls()
        if v <= 3:
            o.name = r.string()
        elif v >= 4 and v <= 5:
            o.name = r.compact_string()
        else:
            o.name = r.compact_nullable_string()
        if v >= 6:
            o.topic_id = r.uuid_value()
        o.error_code = r.int16()
        if v >= 5:
            o.error_message = r.compact_nullable_string()
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 3:
            w.string(self.name)
        elif v >= 4 and v <= 5:
            w.compact_string(self.name)
        else:
            w.compact_nullable_string(self.name)
        if v >= 6:
            w.uuid_value(self.topic_id)
        w.int16(self.error_code)
        if v >= 5:
            w.compact_nullable_string(self.error_message)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DeleteTopicsResponse(Message):
    NAME: ClassVar[str] = 'DeleteTopicsResponse'
    API_KEY: ClassVar[int] = 20
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 6
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 4
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    responses: list[DeletableTopicResult] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DeleteTopicsResponse:
        o = cls()
        if v >= 1:
            o.throttle_time_ms = r.int32()
        if v <= 3:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Responses')
            else:
                o.responses = [DeletableTopicResult.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Responses')
            else:
                o.responses = [DeletableTopicResult.read(r, v) for _ in range(n)]
        if v >= 4:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 1:
            w.int32(self.throttle_time_ms)
        if v <= 3:
            w.array_length(self.responses)
            for responses_item in self.responses:
                responses_item.write(w, v)
        else:
            w.compact_array_length(self.responses)
            for responses_item in self.responses:
                responses_item.write(w, v)
        if v >= 4:
            w.tagged_fields(self.unknown_tagged_fields)
