"""`__consumer_offsets` record formats, as Kafka writes them.

key   = int16 record type (0/1 offset commit, 2 group metadata) + key struct (version 0)
value = int16 version + value struct; a null value is a tombstone.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from coordinator.group.offsets import OffsetAndMetadata
from protocol.messages.group_metadata_key import GroupMetadataKey
from protocol.messages.group_metadata_value import GroupMetadataValue
from protocol.messages.offset_commit_key import OffsetCommitKey
from protocol.messages.offset_commit_value import OffsetCommitValue

OFFSETS_TOPIC = "__consumer_offsets"

OFFSET_COMMIT_KEY_VERSION = 1
GROUP_METADATA_KEY_VERSION = 2
# v3 carries the leader epoch; v1 is the only one with an explicit expire timestamp.
OFFSET_COMMIT_VALUE_VERSION = 3
OFFSET_COMMIT_VALUE_VERSION_EXPIRE = 1
# v3 carries group instance ids (static membership).
GROUP_METADATA_VALUE_VERSION = 3

_I16 = struct.Struct(">h")


@dataclass(frozen=True, slots=True)
class OffsetKey:
    group: str
    topic: str
    partition: int


@dataclass(frozen=True, slots=True)
class GroupKey:
    group: str


class UnknownRecordError(ValueError):
    pass


def offset_key(group: str, topic: str, partition: int) -> bytes:
    return _I16.pack(OFFSET_COMMIT_KEY_VERSION) + OffsetCommitKey(group, topic, partition).encode(0)


def group_key(group: str) -> bytes:
    return _I16.pack(GROUP_METADATA_KEY_VERSION) + GroupMetadataKey(group).encode(0)


def parse_key(buf: bytes) -> OffsetKey | GroupKey:
    (version,) = _I16.unpack_from(buf)
    if version in (0, 1):
        k = OffsetCommitKey.decode(buf[2:], 0)
        return OffsetKey(k.group, k.topic, k.partition)
    if version == GROUP_METADATA_KEY_VERSION:
        return GroupKey(GroupMetadataKey.decode(buf[2:], 0).group)
    raise UnknownRecordError(f"unknown __consumer_offsets key version {version}")


def offset_value(value: OffsetCommitValue) -> bytes:
    version = OFFSET_COMMIT_VALUE_VERSION_EXPIRE if value.expire_timestamp >= 0 else OFFSET_COMMIT_VALUE_VERSION
    return _I16.pack(version) + value.encode(version)


def parse_offset_value(buf: bytes) -> OffsetCommitValue:
    (version,) = _I16.unpack_from(buf)
    return OffsetCommitValue.decode(buf[2:], min(version, OffsetCommitValue.MAX_VERSION))


def offset_record(group: str, tp: tuple[str, int], om: OffsetAndMetadata) -> tuple[bytes, bytes]:
    """The record of one committed offset, plain or transactional alike."""
    value = OffsetCommitValue(
        offset=om.offset, leader_epoch=om.leader_epoch, metadata=om.metadata,
        commit_timestamp=om.commit_timestamp, expire_timestamp=om.expire_timestamp,
    )
    return offset_key(group, tp[0], tp[1]), offset_value(value)


def offset_from_record(buf: bytes, record_offset: int) -> OffsetAndMetadata:
    v = parse_offset_value(buf)
    return OffsetAndMetadata(v.offset, v.leader_epoch, v.metadata, v.commit_timestamp, v.expire_timestamp,
                             record_offset)


def group_value(value: GroupMetadataValue) -> bytes:
    return _I16.pack(GROUP_METADATA_VALUE_VERSION) + value.encode(GROUP_METADATA_VALUE_VERSION)


def parse_group_value(buf: bytes) -> GroupMetadataValue:
    (version,) = _I16.unpack_from(buf)
    return GroupMetadataValue.decode(buf[2:], min(version, GroupMetadataValue.MAX_VERSION))
