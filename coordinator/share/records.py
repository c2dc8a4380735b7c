"""`__share_group_state` records, as Kafka's share coordinator writes them (KIP-932).

Key: int16 record type (0 ShareSnapshot, 1 ShareUpdate) + the group, topic id and partition.
Value: int16 version 0 + ShareSnapshotValue (the whole state of a share partition) or
ShareUpdateValue (the batches changed since the snapshot); a null value is a tombstone (the
state was deleted). The topic is compacted: the last snapshot per key, then the updates
written after it, make the state."""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass, field

from coordinator.share.partition import PersistedBatch
from coordinator.share.record_state import RecordState
from protocol.codec import Reader, Writer, uvarint_bytes
from protocol.messages.share_snapshot_key import ShareSnapshotKey
from protocol.messages.share_snapshot_value import ShareSnapshotValue
from protocol.messages.share_snapshot_value import StateBatch as SnapshotBatch
from protocol.messages.share_update_key import ShareUpdateKey
from protocol.messages.share_update_value import ShareUpdateValue
from protocol.messages.share_update_value import StateBatch as UpdateBatch

SHARE_GROUP_STATE_TOPIC = "__share_group_state"
SNAPSHOT = 0
UPDATE = 1
VALUE_VERSION = 0

TOPIC_CONFIGS = {"cleanup.policy": "compact", "compression.type": "uncompressed"}


@dataclass(frozen=True)
class SharePartitionKey:
    group_id: str
    topic_id: uuid.UUID
    partition: int
    # Looked up a dozen times per acknowledgement: hashed once (a UUID's hash is Python code).
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.group_id, self.topic_id, self.partition)))

    def __hash__(self) -> int:
        return self._hash


@dataclass(frozen=True)
class ShareSnapshot:
    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    batches: tuple[PersistedBatch, ...]
    create_timestamp: int
    write_timestamp: int
    # KIP-1226: offsets at or past the start offset whose delivery is complete; -1 unknown.
    delivery_complete_count: int = -1


@dataclass(frozen=True)
class ShareUpdate:
    snapshot_epoch: int
    leader_epoch: int
    # -1: the start offset did not change.
    start_offset: int
    batches: tuple[PersistedBatch, ...]
    delivery_complete_count: int = -1


def encode_key(record_type: int, key: SharePartitionKey) -> bytes:
    if record_type not in (SNAPSHOT, UPDATE):
        raise ValueError(f"unknown __share_group_state record type {record_type}")
    cls = ShareSnapshotKey if record_type == SNAPSHOT else ShareUpdateKey
    w = Writer()
    w.int16(record_type)
    cls(group_id=key.group_id, topic_id=key.topic_id, partition=key.partition).write(w, 0)
    return w.getvalue()


def decode_key(raw: bytes) -> tuple[int, SharePartitionKey]:
    r = Reader(raw)
    record_type = r.int16()
    if record_type == SNAPSHOT:
        k: ShareSnapshotKey | ShareUpdateKey = ShareSnapshotKey.read(r, 0)
    elif record_type == UPDATE:
        k = ShareUpdateKey.read(r, 0)
    else:
        raise ValueError(f"unknown __share_group_state record type {record_type}")
    return record_type, SharePartitionKey(k.group_id, k.topic_id, k.partition)


def encode_snapshot(s: ShareSnapshot) -> bytes:
    value = ShareSnapshotValue(
        snapshot_epoch=s.snapshot_epoch,
        state_epoch=s.state_epoch,
        leader_epoch=s.leader_epoch,
        start_offset=s.start_offset,
        delivery_complete_count=s.delivery_complete_count,
        create_timestamp=s.create_timestamp,
        write_timestamp=s.write_timestamp,
        state_batches=[
            SnapshotBatch(b.first_offset, b.last_offset, b.state.id, b.delivery_count) for b in s.batches
        ],
    )
    w = Writer()
    w.int16(VALUE_VERSION)
    value.write(w, VALUE_VERSION)
    return w.getvalue()


def decode_snapshot(raw: bytes) -> ShareSnapshot:
    r = Reader(raw)
    _check_version(r.int16())
    v = ShareSnapshotValue.read(r, VALUE_VERSION)
    return ShareSnapshot(
        v.snapshot_epoch,
        v.state_epoch,
        v.leader_epoch,
        v.start_offset,
        tuple(_batch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count) for b in v.state_batches),
        v.create_timestamp,
        v.write_timestamp,
        v.delivery_complete_count,
    )


# ShareUpdateValue v0 packed directly (one per acknowledgement): the version, SnapshotEpoch,
# LeaderEpoch, StartOffset; each StateBatch with its empty tagged-field section.
_UPDATE_HEAD = struct.Struct(">hiiq")
_UPDATE_BATCH = struct.Struct(">qqbhB")
_NO_TAGGED_FIELDS = b"\x00"
# One tagged field, tag 0 (DeliveryCompleteCount), 4 bytes.
_DELIVERY_COMPLETE_COUNT_TAG = struct.Struct(">BBBi")


def encode_update(u: ShareUpdate) -> bytes:
    """The bytes `ShareUpdateValue.write` makes (`encode_update_generic`), without building it."""
    pack = _UPDATE_BATCH.pack
    parts = [_UPDATE_HEAD.pack(VALUE_VERSION, u.snapshot_epoch, u.leader_epoch, u.start_offset),
             uvarint_bytes(len(u.batches) + 1)]
    parts += [pack(b.first_offset, b.last_offset, b.state.value, b.delivery_count, 0) for b in u.batches]
    parts.append(_NO_TAGGED_FIELDS if u.delivery_complete_count == -1
                 else _DELIVERY_COMPLETE_COUNT_TAG.pack(1, 0, 4, u.delivery_complete_count))
    return b"".join(parts)


def encode_update_generic(u: ShareUpdate) -> bytes:
    value = ShareUpdateValue(
        snapshot_epoch=u.snapshot_epoch,
        leader_epoch=u.leader_epoch,
        start_offset=u.start_offset,
        delivery_complete_count=u.delivery_complete_count,
        state_batches=[UpdateBatch(b.first_offset, b.last_offset, b.state.id, b.delivery_count) for b in u.batches],
    )
    w = Writer()
    w.int16(VALUE_VERSION)
    value.write(w, VALUE_VERSION)
    return w.getvalue()


def decode_update(raw: bytes) -> ShareUpdate:
    r = Reader(raw)
    _check_version(r.int16())
    v = ShareUpdateValue.read(r, VALUE_VERSION)
    return ShareUpdate(
        v.snapshot_epoch,
        v.leader_epoch,
        v.start_offset,
        tuple(_batch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count) for b in v.state_batches),
        v.delivery_complete_count,
    )


def _check_version(version: int) -> None:
    if version != VALUE_VERSION:
        raise ValueError(f"unknown __share_group_state value version {version}")


def _batch(first: int, last: int, state_id: int, delivery_count: int) -> PersistedBatch:
    state = RecordState.from_id(state_id)
    if state is RecordState.ACQUIRED:
        raise ValueError("acquired records are never stored")
    return PersistedBatch(first, last, state, delivery_count)
