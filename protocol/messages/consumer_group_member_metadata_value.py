"""ConsumerGroupMemberMetadataValue (API key 5)

Generated from `schemas/coordinator-records/ConsumerGroupMemberMetadataValue.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ClassicProtocol:
    name: str = ''
    metadata: bytes = b''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ClassicProtocol:
        o = cls()
        o.name = r.compact_string()
        o.metadata = r.compact_blob()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_string(self.name)
        w.compact_blob(self.metadata)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ClassicMemberMetadata:
    session_timeout_ms: int = 0
    supported_protocols: list[ClassicProtocol] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ClassicMemberMetadata:
        o = cls()
        o.session_timeout_ms = r.int32()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array SupportedProtocols')
        else:
            o.supported_protocols = [ClassicProtocol.read(r, v) for _ in range(n)]
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int32(self.session_timeout_ms)
        w.compact_array_length(self.supported_protocols)
        for supported_protocols_item in self.supported_protocols:
            supported_protocols_item.write(w, v)
        w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class ConsumerGroupMemberMetadataValue(Message):
    NAME: ClassVar[str] = 'ConsumerGroupMemberMetadataValue'
    API_KEY: ClassVar[int] = 5
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 0
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 0
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    instance_id: str | None = ''
    rack_id: str | None = ''
    client_id: str = ''
    client_host: str = ''
    subscribed_topic_names: list[str] = field(default_factory=list)
    subscribed_topic_regex: str | None = ''
    rebalance_timeout_ms: int = -1
    server_assignor: str | None = ''
    classic_member_metadata: ClassicMemberMetadata | None = None
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ConsumerGroupMemberMetadataValue:
        o = cls()
        o.instance_id = r.compact_nullable_string()
        o.rack_id = r.compact_nullable_string()
        o.client_id = r.compact_string()
        o.client_host = r.compact_string()
        n = r.compact_array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array SubscribedTopicNames')
        else:
            o.subscribed_topic_names = [r.compact_string() for _ in range(n)]
        o.subscribed_topic_regex = r.compact_nullable_string()
        o.rebalance_timeout_ms = r.int32()
        o.server_assignor = r.compact_nullable_string()
        for _ in range(r.uvarint()):
            tag, sub = r.tagged_field_header()
            if tag == 0:
                _r, r = r, sub
                o.classic_member_metadata = ClassicMemberMetadata.read(r, v) if r.struct_presence() else None
                r = _r
            else:
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.compact_nullable_string(self.instance_id)
        w.compact_nullable_string(self.rack_id)
        w.compact_string(self.client_id)
        w.compact_string(self.client_host)
        w.compact_array_length(self.subscribed_topic_names)
        for subscribed_topic_names_item in self.subscribed_topic_names:
            w.compact_string(subscribed_topic_names_item)
        w.compact_nullable_string(self.subscribed_topic_regex)
        w.int32(self.rebalance_timeout_ms)
        w.compact_nullable_string(self.server_assignor)
        tagged = list(self.unknown_tagged_fields)
        if self.classic_member_metadata != None:
            t = Writer()
            if self.classic_member_metadata is None:
                t.int8(-1)
            else:
                t.int8(1)
                self.classic_member_metadata.write(t, v)
            tagged.append(RawTaggedField(0, bytes(t.buf)))
        tagged.sort(key=_tag_order)
        w.tagged_fields(tagged)
