"""The one internal-topic log: its error translation and both implementations."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from coordinator.log import (
    GROUP_METADATA,
    OFFSET_COMMIT,
    TRANSACTION_STATE,
    TXN_OFFSET_COMMIT,
    CoordinatorLogError,
    LogRecord,
    MemoryCoordinatorLog,
    Producer,
    StorageCoordinatorLog,
)
from protocol.errors import ErrorCode as E
from storage import MemoryStorage
from storage.clock import ManualClock
from storage.file_storage import FileStorage
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.unit.storage.flush_rounds import rounds_held
from tests.unit.storage.storage_helpers import make_batch


@pytest.mark.parametrize(
    ("error", "group", "offsets", "txn_offsets", "txn_state"),
    [
        # Shared by every write: unavailable and not-leader cases.
        (E.UNKNOWN_TOPIC_OR_PARTITION, E.COORDINATOR_NOT_AVAILABLE, E.COORDINATOR_NOT_AVAILABLE,
         E.COORDINATOR_NOT_AVAILABLE, E.COORDINATOR_NOT_AVAILABLE),
        (E.NOT_ENOUGH_REPLICAS, E.COORDINATOR_NOT_AVAILABLE, E.COORDINATOR_NOT_AVAILABLE,
         E.COORDINATOR_NOT_AVAILABLE, E.COORDINATOR_NOT_AVAILABLE),
        (E.NOT_ENOUGH_REPLICAS_AFTER_APPEND, E.COORDINATOR_NOT_AVAILABLE, E.COORDINATOR_NOT_AVAILABLE,
         E.COORDINATOR_NOT_AVAILABLE, E.COORDINATOR_NOT_AVAILABLE),
        (E.NOT_LEADER_OR_FOLLOWER, E.NOT_COORDINATOR, E.NOT_COORDINATOR, E.NOT_COORDINATOR, E.NOT_COORDINATOR),
        (E.KAFKA_STORAGE_ERROR, E.NOT_COORDINATOR, E.NOT_COORDINATOR, E.NOT_COORDINATOR, E.NOT_COORDINATOR),
        # Where Kafka's writes differ.
        (E.REQUEST_TIMED_OUT, E.REBALANCE_IN_PROGRESS, E.REQUEST_TIMED_OUT, E.COORDINATOR_NOT_AVAILABLE,
         E.COORDINATOR_NOT_AVAILABLE),
        (E.MESSAGE_TOO_LARGE, E.UNKNOWN_SERVER_ERROR, E.INVALID_COMMIT_OFFSET_SIZE, E.UNKNOWN_SERVER_ERROR,
         E.UNKNOWN_SERVER_ERROR),
        (E.RECORD_LIST_TOO_LARGE, E.UNKNOWN_SERVER_ERROR, E.INVALID_COMMIT_OFFSET_SIZE, E.UNKNOWN_SERVER_ERROR,
         E.UNKNOWN_SERVER_ERROR),
        (E.INVALID_PRODUCER_EPOCH, E.INVALID_PRODUCER_EPOCH, E.INVALID_PRODUCER_EPOCH, E.INVALID_PRODUCER_EPOCH,
         E.UNKNOWN_SERVER_ERROR),
    ],
)
def test_append_errors_as_clients_see_them(error: E, group: E, offsets: E, txn_offsets: E, txn_state: E) -> None:
    exc = CoordinatorLogError(error)
    assert exc.error is error
    assert (exc.client_error(GROUP_METADATA), exc.client_error(OFFSET_COMMIT), exc.client_error(TXN_OFFSET_COMMIT),
            exc.client_error(TRANSACTION_STATE)) == (group, offsets, txn_offsets, txn_state)


async def test_memory_log_appends_markers_and_failures() -> None:
    log = MemoryCoordinatorLog(num_partitions=2)
    assert await log.append(1, [(b"k", b"v")]) == 0
    assert await log.append(1, [(b"o", b"1"), (b"o", None)], Producer(7, 0)) == 1
    log.append_marker(1, 7, committed=True)
    assert await log.replay(1) == [
        LogRecord(0, b"k", b"v"),
        LogRecord(1, b"o", b"1", 7, True),
        LogRecord(2, b"o", None, 7, True),
        LogRecord(3, None, None, 7, True, True),
    ]
    assert await log.replay(0) == []
    log.fail_next = 1
    with pytest.raises(CoordinatorLogError) as failed:
        await log.append(0, [(b"k", b"v")])
    assert failed.value.error is E.NOT_ENOUGH_REPLICAS
    assert await log.append(0, [(b"k", b"v")]) == 0  # only the next one failed


async def test_storage_log_plain_and_transactional_appends_replay() -> None:
    storage = MemoryStorage(producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    log = StorageCoordinatorLog(storage, "__consumer_offsets", 3, ManualClock())
    assert await log.replay(2) == [] and not log.exists()  # reading does not create the topic
    assert await log.append(2, [(b"a", b"1"), (b"b", None)]) == 0
    assert await log.append(2, [(b"c", b"3")], Producer(5, 1)) == 2
    assert await log.replay(2) == [
        LogRecord(0, b"a", b"1"),
        LogRecord(1, b"b", None),
        LogRecord(2, b"c", b"3", 5, True),
    ]
    info = storage.describe_topic("__consumer_offsets")
    assert info.num_partitions == 3 and info.internal
    # A stale epoch is the leader's own verdict, kept as such.
    with pytest.raises(CoordinatorLogError) as stale:
        await log.append(2, [(b"c", b"4")], Producer(5, 0))
    assert stale.value.error is E.INVALID_PRODUCER_EPOCH


async def test_storage_log_writes_after_earlier_writes_once_they_are_durable(tmp_path: Path) -> None:
    storage = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    try:
        await storage.create_topic("t", 1)
        log = StorageCoordinatorLog(storage, "__transaction_state", 1, ManualClock())
        await log.ensure_topic()
        state = storage.log("__transaction_state", 0)
        async with rounds_held(storage) as gate:
            # Data written while a round runs: durable only once the round after it ends.
            storage.log("t", 0).append_nowait(make_batch(2))
            ordered = asyncio.ensure_future(log.append(0, [(b"k", b"1")], after_earlier_writes=True))
            for _ in range(20):
                await asyncio.sleep(0)
            assert not ordered.done() and state.log_end_offset == 0
            # Without the flag the record is written at once, then waits for its round.
            plain = asyncio.ensure_future(log.append(0, [(b"k", b"2")]))
            for _ in range(20):
                await asyncio.sleep(0)
            assert state.log_end_offset == 1 and not plain.done()
            gate.release.set()
            assert await asyncio.wait_for(asyncio.gather(plain, ordered), 10) == [0, 1]
        assert await log.replay(0) == [LogRecord(0, b"k", b"2"), LogRecord(1, b"k", b"1")]
    finally:
        await storage.close()
