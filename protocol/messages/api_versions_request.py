"""ApiVersionsRequest (API key 18)

Generated from `schemas/ApiVersionsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class ApiVersionsRequest(Message):
    NAME: ClassVar[str] = 'ApiVersionsRequest'
    API_KEY: ClassVar[int] = 18
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 4
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 3
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    client_software_name: str = ''
    client_software_version: str = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> ApiVersionsRequest:
        o = cls()
        if v >= 3:
            o.client_software_name = r.compact_string()
        if v >= 3:
            o.client_software_version = r.compact_string()
        if v >= 3:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v >= 3:
            w.compact_string(self.client_software_name)
        if v >= 3:
            w.compact_string(self.client_software_version)
        if v >= 3:
            w.tagged_fields(self.unknown_tagged_fields)
