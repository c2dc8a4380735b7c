"""SaslHandshakeResponse (API key 17)

Generated from `schemas/SaslHandshakeResponse.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class SaslHandshakeResponse(Message):
    NAME: ClassVar[str] = 'SaslHandshakeResponse'
    API_KEY: ClassVar[int] = 17
    MIN_VERSION: ClassVar[int] = 0
    MAX_VERSION: ClassVar[int] = 1
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 32767
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    error_code: int = 0
    mechanisms: list[str] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> SaslHandshakeResponse:
        o = cls()
        o.error_code = r.int16()
        n = r.array_length()
        if n < 0:
            raise InvalidValueError('null in non-nullable array Mechanisms')
        else:
            o.mechanisms = [r.string() for _ in range(n)]
        return o

    def write(self, w: Writer, v: int) -> None:
        w.int16(self.error_code)
        w.array_length(self.mechanisms)
        for mechanisms_item in self.mechanisms:
            w.string(mechanisms_item)
