"""ShareGroupHeartbeatRequest (API key 76)

Generated from `schemas/ShareGroupHeartbeatRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ShareGroupHeartbeatRequest(Message):
    NAME: ClassVar[str] = 'ShareGroupHeartbeatRequest'
    API_KEY: ClassVar[int] = 76
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    group_id: str = ''
    member_id: str = ''
    member_epoch: int = 0
    rack_id: str | None = None
    subscribed_topic_names: list[str] | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ShareGroupHeartbeatRequest:
        o = cls()
        o.group_id = r.compact_string()
        o.member_id = r.compact_string()
        o.member_epoch = r.int32()
        o.rack_id = r.compact_nullable_string()
        n = r.compact_array_length()
        if n < 0:
            o.subscribed_topic_names = None
        else:
            o.subscribed_topic_names = [r.compact_string() for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.group_id)
        w.compact_string(self.member_id)
        w.int32(self.member_epoch)
        w.compact_nullable_string(self.rack_id)
        w.compact_array_length(self.subscribed_topic_names)
        if self.subscribed_topic_names is not None:
            for subscribed_topic_names_item in self.subscribed_topic_names:
                w.compact_string(subscribed_topic_names_item)
        w.tagged_fields(self.unknown_tagged_fields)
