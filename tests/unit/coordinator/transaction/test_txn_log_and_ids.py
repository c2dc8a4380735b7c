"""`__transaction_state` records, placement, the engine-backed store and producer-id blocks."""

from __future__ import annotations

from pathlib import Path

import pytest

from coordinator.log import LogRecord, MemoryCoordinatorLog, StorageCoordinatorLog
from coordinator.partitioning import java_string_hashcode, partition_for
from coordinator.producer_ids import BLOCK_FILE, ProducerIdManager
from coordinator.transaction import InMemoryMarkerWriter, TransactionCoordinator
from coordinator.transaction.metadata import TxnTransit
from coordinator.transaction.records import (
    TOPIC_CONFIGS,
    TRANSACTION_STATE_TOPIC,
    decode_key,
    decode_value,
    encode_key,
    encode_value,
)
from coordinator.transaction.state import TransactionState
from protocol.codec import Reader
from protocol.messages.transaction_log_value import TransactionLogValue
from storage.clock import ManualClock
from storage.memory import MemoryStorage
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.unit.coordinator.transaction.txn_helpers import txn_config


@pytest.mark.parametrize(
    ("s", "h"),
    [("", 0), ("hello", 99162322), ("polygenelubricants", -(2**31)), ("\U0001f600", 1772899)],
)
def test_java_string_hashcode(s: str, h: int) -> None:
    assert java_string_hashcode(s) == h


def test_partition_for() -> None:
    assert partition_for("polygenelubricants", 50) == 0  # abs(Integer.MIN_VALUE) is 0
    assert partition_for("hello", 50) == 99162322 % 50
    assert partition_for("x" * 40, 7) == abs(java_string_hashcode("x" * 40)) % 7


def _transit(state: TransactionState, partitions: frozenset[tuple[str, int]] = frozenset()) -> TxnTransit:
    return TxnTransit(
        producer_id=42,
        prev_producer_id=41,
        next_producer_id=-1,
        producer_epoch=7,
        last_producer_epoch=-1,
        timeout_ms=60000,
        state=state,
        partitions=partitions,
        start_timestamp=100,
        last_update_timestamp=200,
    )


def test_record_round_trip() -> None:
    t = _transit(TransactionState.ONGOING, frozenset({("a", 1), ("a", 0), ("b", 3)}))
    assert decode_value(encode_value(t)) == t
    assert decode_key(encode_key("tx")) == "tx"
    assert encode_key("tx")[:2] == b"\x00\x00"  # record type 0
    raw = encode_value(t)
    assert raw[:2] == b"\x00\x01"
    value = TransactionLogValue.read(Reader(raw[2:]), 1)
    assert value.transaction_status == 1
    assert [(p.topic, p.partition_ids) for p in value.transaction_partitions or []] == [
        ("a", [0, 1]),
        ("b", [3]),
    ]


def test_empty_state_written_with_null_partitions() -> None:
    raw = encode_value(_transit(TransactionState.EMPTY))
    assert TransactionLogValue.read(Reader(raw[2:]), 1).transaction_partitions is None
    assert decode_value(raw).partitions == frozenset()


def test_reads_version_0_values() -> None:
    from protocol.codec import Writer

    w = Writer()
    w.int16(0)
    TransactionLogValue(
        producer_id=5, producer_epoch=2, transaction_timeout_ms=10, transaction_status=4
    ).write(w, 0)
    t = decode_value(bytes(w.buf))
    assert (t.producer_id, t.producer_epoch, t.state, t.prev_producer_id) == (
        5,
        2,
        TransactionState.COMPLETE_COMMIT,
        -1,
    )


async def test_replay_last_record_wins_and_tombstones_delete() -> None:
    recs = [
        (encode_key("a"), encode_value(_transit(TransactionState.EMPTY))),
        (encode_key("b"), encode_value(_transit(TransactionState.EMPTY))),
        (encode_key("a"), encode_value(_transit(TransactionState.ONGOING, frozenset({("t", 0)})))),
        (encode_key("b"), None),
    ]
    log = MemoryCoordinatorLog(num_partitions=1)
    await log.append(0, recs)
    coord = TransactionCoordinator(log, InMemoryMarkerWriter(), ProducerIdManager(None), ManualClock(),
                                   txn_config(num_partitions=1))
    await coord.load()
    assert coord.describe("b")[1] is None
    a = coord.describe("a")[1]
    assert a is not None and a.state is TransactionState.ONGOING


async def test_engine_store_round_trip() -> None:
    engine = MemoryStorage(producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    store = StorageCoordinatorLog(engine, TRANSACTION_STATE_TOPIC, 3, ManualClock(), TOPIC_CONFIGS)
    assert await store.replay(0) == []
    assert not store.exists()  # reading does not create the topic
    recs = [(encode_key("a"), encode_value(_transit(TransactionState.EMPTY))), (encode_key("a"), None)]
    await store.append(1, recs[:1])
    await store.append(1, recs[1:])
    assert await store.replay(1) == [LogRecord(0, *recs[0]), LogRecord(1, *recs[1])]
    assert await store.replay(0) == []
    info = engine.describe_topic("__transaction_state")
    assert info.num_partitions == 3 and info.internal


# --- producer ids ----------------------------------------------------------------------------


async def test_producer_ids_in_memory() -> None:
    ids = ProducerIdManager(None, block_size=3)
    assert [await ids.generate() for _ in range(7)] == list(range(7))


async def test_producer_id_blocks_survive_restart_and_crash(tmp_path: Path) -> None:
    ids = ProducerIdManager(tmp_path, block_size=10)
    first = [await ids.generate() for _ in range(3)]
    assert first == [0, 1, 2]
    assert (tmp_path / BLOCK_FILE).exists()
    # "Crash" mid-block: the rest of the block is skipped, never reused.
    ids2 = ProducerIdManager(tmp_path, block_size=10)
    assert await ids2.generate() == 10
    more = [await ids2.generate() for _ in range(15)]
    assert more == list(range(11, 26))
    ids3 = ProducerIdManager(tmp_path, block_size=10)
    assert await ids3.generate() == 30


def test_unreadable_block_file_refused(tmp_path: Path) -> None:
    (tmp_path / BLOCK_FILE).write_text("garbage")
    with pytest.raises(RuntimeError):
        ProducerIdManager(tmp_path)
