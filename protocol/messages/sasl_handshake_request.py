"""SaslHandshakeRequest (API key 17)

Generated from `schemas/SaslHandshakeRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class SaslHandshakeRequest(Message):
    NAME: ClassVar[str] = 'SaslHandshakeRequest'
    API_KEY: ClassVar[int] = 17
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 32767
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    mechanism: str = ''
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> SaslHandshakeRequest:
        o = cls()
        o.mechanism = r.string()
        return o

    def write(self, w: Writer, v: int) -> None:
        w.string(self.mechanism)
