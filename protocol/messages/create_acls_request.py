"""CreateAclsRequest (API key 30)

Generated from `schemas/CreateAclsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class AclCreation:
    resource_type: int = 0
    resource_name: str = ''
    resource_pattern_type: int = 3
    principal: str = ''
    host: str = ''
    operation: int = 0
    permission_type: int = 0
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AclCreation:
        o = cls()
        o.resource_type = r.int8()
        if v <= 1:
            o.resource_name = r.string()
        else:
            o.resource_name = r.compact_string()
        o.resource_pattern_type = r.int8()
        if v <= 1:
            o.principal = r.string()
        else:
            o.principal = r.compact_string()
        if v <= 1:
            o.host = r.string()
        else:
            o.host = r.compact_string()
        o.operation = r.int8()
        o.permission_type = r.int8()
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int8(self.resource_type)
        if v <= 1:
            w.string(self.resource_name)
        else:
            w.compact_string(self.resource_name)
        w.int8(self.resource_pattern_type)
        if v <= 1:
            w.string(self.principal)
        else:
            w.compact_string(self.principal)
        if v <= 1:
            w.string(self.host)
        else:
            w.compact_string(self.host)
        w.int8(self.operation)
        w.int8(self.permission_type)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class CreateAclsRequest(Message):
    NAME: ClassVar[str] = 'CreateAclsRequest'
    API_KEY: ClassVar[int] = 30
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 3
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    creations: list[AclCreation] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> CreateAclsRequest:
        o = cls()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Creations')
            else:
                o.creations = [AclCreation.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Creations')
            else:
                o.creations = [AclCreation.read(r, v) for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.array_length(self.creations)
            for creations_item in self.creations:
                creations_item.write(w, v)
        else:
            w.compact_array_length(self.creations)
            for creations_item in self.creations:
                creations_item.write(w, v)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
