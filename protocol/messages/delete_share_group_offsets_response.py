"""DeleteShareGroupOffsetsResponse (API key 92)

Generated from `schemas/DeleteShareGroupOffsetsResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class DeleteShareGroupOffsetsResponseTopic:
    topic_name: str = ''
    topic_id: uuid.UUID = ZERO_UUID
    error_code: int = 0
    error_message: str | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DeleteShareGroupOffsetsResponseTopic:
        o = cls()
        o.topic_name = r.compact_string()
        o.topic_id = r.uuid_value()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.topic_name)
        w.uuid_value(self.topic_id)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class DeleteShareGroupOffsetsResponse(Message):
    NAME: ClassVar[str] = 'DeleteShareGroupOffsetsResponse'
    API_KEY: ClassVar[int] = 92
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    throttle_time_ms: int = 0
    error_code: int = 0
    error_message: str | None = None
    responses: list[DeleteShareGroupOffsetsResponseTopic] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> DeleteShareGroupOffsetsResponse:
        o = cls()
        o.throttle_time_ms = r.int32()
        o.error_code = r.int16()
        o.error_message = r.compact_nullable_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Responses')
        else:
            o.responses = [DeleteShareGroupOffsetsResponseTopic.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.throttle_time_ms)
        w.int16(self.error_code)
        w.compact_nullable_string(self.error_message)
        w.compact_array_length(self.responses)
        for responses_item in self.responses:
            responses_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)
