"""ShareGroupMemberMetadataValue (API key 10)

Generated from `schemas/coordinator-records/ShareGroupMemberMetadataValue.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ShareGroupMemberMetadataValue(Message):
    NAME: ClassVar[str] = 'ShareGroupMemberMetadataValue'
    API_KEY: ClassVar[int] = 10
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    rack_id: str | None = ''
    client_id: str = ''
    client_host: str = ''
    subscribed_topic_names: list[str] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareGroupMemberMetadataValue:
        o = cls()
        o.rack_id = r.compact_nullable_string()
        o.client_id = r.compact_string()
        o.client_host = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array SubscribedTopicNames')
        else:
            o.subscribed_topic_names = [r.compact_string() for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_nullable_string(self.rack_id)
        w.compact_string(self.client_id)
        w.compact_string(self.client_host)
        w.compact_array_length(self.subscribed_topic_names)
        for subscribed_topic_names_item in self.subscribed_topic_names:
            w.compact_string(subscribed_topic_names_item)
        w.tagged_fields(self.unknown_tagged_fields)
