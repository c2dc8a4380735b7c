"""`__share_group_state` records: exact bytes of keys and values, and round trips."""

from __future__ import annotations

import struct
import uuid

import pytest

from coordinator.share.partition import Acknowledgement, PersistedBatch, SharePartition
from coordinator.share.record_state import AcknowledgeType, RecordState
from coordinator.share.records import (
    SNAPSHOT,
    UPDATE,
    SharePartitionKey,
    ShareSnapshot,
    ShareUpdate,
    decode_key,
    decode_snapshot,
    decode_update,
    encode_key,
    encode_snapshot,
    encode_update,
    encode_update_generic,
)
from storage.clock import ManualClock

TOPIC = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")
KEY = SharePartitionKey("g1", TOPIC, 7)


def test_key_bytes() -> None:
    # int16 record type, then the non-flexible key: int16-length string, uuid, int32.
    body = struct.pack(">h", 2) + b"g1" + TOPIC.bytes + struct.pack(">i", 7)
    assert encode_key(SNAPSHOT, KEY) == struct.pack(">h", 0) + body
    assert encode_key(UPDATE, KEY) == struct.pack(">h", 1) + body
    assert decode_key(encode_key(UPDATE, KEY)) == (UPDATE, KEY)
    with pytest.raises(ValueError):
        encode_key(2, KEY)
    with pytest.raises(ValueError):
        decode_key(struct.pack(">h", 5) + body)


def test_update_value_bytes() -> None:
    u = ShareUpdate(3, 1, 40, (PersistedBatch(40, 41, RecordState.ACKNOWLEDGED, 2),))
    expected = (
        struct.pack(">hiiq", 0, 3, 1, 40)
        + bytes([2])  # compact array of one batch
        + struct.pack(">qqbh", 40, 41, 2, 2)
        + bytes([0])  # batch tagged fields
        + bytes([0])  # no tagged fields: DeliveryCompleteCount is at its default -1
    )
    assert encode_update(u) == expected
    assert decode_update(expected) == u


def test_delivery_complete_count_is_a_tagged_field() -> None:
    u = ShareUpdate(3, 1, -1, (), delivery_complete_count=5)
    raw = encode_update(u)
    assert raw.endswith(bytes([1, 0, 4]) + struct.pack(">i", 5))
    assert decode_update(raw) == u


@pytest.mark.parametrize("batches", [0, 1, 3, 130], ids=lambda n: f"{n}-batches")
@pytest.mark.parametrize("complete", [-1, 0, 1 << 20])
def test_update_packed_directly_is_the_generated_codecs(batches: int, complete: int) -> None:
    states = [RecordState.AVAILABLE, RecordState.ACKNOWLEDGED, RecordState.ARCHIVED]
    u = ShareUpdate(
        2**31 - 1, -1, 2**40 + 5,
        tuple(PersistedBatch(10 * i, 10 * i + 9, states[i % 3], i % 7) for i in range(batches)),
        delivery_complete_count=complete,
    )
    raw = encode_update(u)
    assert raw == encode_update_generic(u)
    assert decode_update(raw) == u


def test_snapshot_round_trip_restores_the_partition() -> None:
    clock = ManualClock()
    sp = SharePartition(clock, 100)
    sp.acquire("m1", [(100, 109)], max_records=500)
    sp.acknowledge("m1", [Acknowledgement(100, 101, (AcknowledgeType.ACCEPT,)),
                          Acknowledgement(104, 104, (AcknowledgeType.REJECT,))])
    start, batches = sp.snapshot()
    snap = ShareSnapshot(1, 0, 0, start, tuple(batches), create_timestamp=10, write_timestamp=20)
    back = decode_snapshot(encode_snapshot(snap))
    assert back == snap
    again = SharePartition.restored(clock, back.start_offset, back.batches)
    assert [again.state_of(o) for o in (102, 104, 105)] == [
        (RecordState.AVAILABLE, 0),
        (RecordState.ARCHIVED, 1),
        None,  # past the stored state: never delivered
    ]


def test_acquired_state_is_refused_on_read() -> None:
    raw = encode_update(ShareUpdate(9, 9, 90, (PersistedBatch(90, 95, RecordState.AVAILABLE, 1),)))
    assert raw.count(struct.pack(">qqb", 90, 95, 0)) == 1
    forged = raw.replace(struct.pack(">qqb", 90, 95, 0), struct.pack(">qqb", 90, 95, 1))
    with pytest.raises(ValueError, match="acquired"):
        decode_update(forged)


def test_unknown_value_version() -> None:
    raw = encode_update(ShareUpdate(0, 0, 0, ()))
    with pytest.raises(ValueError, match="version 1"):
        decode_update(struct.pack(">h", 1) + raw[2:])
