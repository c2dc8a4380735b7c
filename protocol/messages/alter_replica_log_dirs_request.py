"""AlterReplicaLogDirsRequest (API key 34)

Generated from `schemas/AlterReplicaLogDirsRequest.json` by `python -m protocol.codegen`; do not edit.
"""

# ruff: noqa
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.codec import ZERO_UUID, InvalidValueError, RawTaggedField, Reader, RecordsData, Writer
from protocol.message import Message, _tag_order


@dataclass(slots=True)
class AlterReplicaLogDirTopic:
    name: str = ''
    partitions: list[int] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterReplicaLogDirTopic:
        o = cls()
        if v <= 1:
            o.name = r.string()
        else:
            o.name = r.compact_string()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [r.int32() for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Partitions')
            else:
                o.partitions = [r.int32() for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.string(self.name)
        else:
            w.compact_string(self.name)
        if v <= 1:
            w.array_length(self.partitions)
            for partitions_item in self.partitions:
                w.int32(partitions_item)
        else:
            w.compact_array_length(self.partitions)
            for partitions_item in self.partitions:
                w.int32(partitions_item)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AlterReplicaLogDir:
    path: str = ''
    topics: list[AlterReplicaLogDirTopic] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterReplicaLogDir:
        o = cls()
        if v <= 1:
            o.path = r.string()
        else:
            o.path = r.compact_string()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [AlterReplicaLogDirTopic.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Topics')
            else:
                o.topics = [AlterReplicaLogDirTopic.read(r, v) for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.string(self.path)
        else:
            w.compact_string(self.path)
        if v <= 1:
            w.array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        else:
            w.compact_array_length(self.topics)
            for topics_item in self.topics:
                topics_item.write(w, v)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)


@dataclass(slots=True)
class AlterReplicaLogDirsRequest(Message):
    NAME: ClassVar[str] = 'AlterReplicaLogDirsRequest'
    API_KEY: ClassVar[int] = 34
    MIN_VERSION: ClassVar[int] = 1
    MAX_VERSION: ClassVar[int] = 2
    FLEXIBLE_MIN_VERSION: ClassVar[int] = 2
    LATEST_VERSION_UNSTABLE: ClassVar[bool] = False

    dirs: list[AlterReplicaLogDir] = field(default_factory=list)
    unknown_tagged_fields: list[RawTaggedField] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, v: int) -> AlterReplicaLogDirsRequest:
        o = cls()
        if v <= 1:
            n = r.array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Dirs')
            else:
                o.dirs = [AlterReplicaLogDir.read(r, v) for _ in range(n)]
        else:
            n = r.compact_array_length()
            if n < 0:
                raise InvalidValueError('null in non-nullable array Dirs')
            else:
                o.dirs = [AlterReplicaLogDir.read(r, v) for _ in range(n)]
        if v >= 2:
            for _ in range(r.uvarint()):
                tag, sub = r.tagged_field_header()
                o.unknown_tagged_fields.append(RawTaggedField(tag, sub.rest()))
        return o

    def write(self, w: Writer, v: int) -> None:
        if v <= 1:
            w.array_length(self.dirs)
            for dirs_item in self.dirs:
                dirs_item.write(w, v)
        else:
            w.compact_array_length(self.dirs)
            for dirs_item in self.dirs:
                dirs_item.write(w, v)
        if v >= 2:
            w.tagged_fields(self.unknown_tagged_fields)
