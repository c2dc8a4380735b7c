"""The high watermark is the end of the durable prefix (Kafka's moves once every in-sync
replica has a record; on one broker "replicated" is "fsynced"). FileStorage makes a write
visible when the fsync round covering it ends, PostgresStorage when the SQL transaction of
the round covering it has committed; MemoryStorage, with nothing to fsync, at
once. A round is held back by a dirty target whose sync waits for the test."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from protocol import record_batch as rb
from storage.engine import LATEST_TIMESTAMP, READ_COMMITTED, READ_UNCOMMITTED, AppendOrigin
from storage.errors import OffsetOutOfRangeError
from storage.file_storage import FileStorage
from storage.files import FileStore
from storage.flusher import PartitionedFlusher
from storage.log import Log
from storage.log_manager import LogManager
from storage.memory import MemoryStorage
from tests.polling import async_wait_until
from tests.unit.storage.flush_rounds import Gate, rounds_held
from tests.unit.storage.storage_helpers import Harness, make_batch

PID, EPOCH = 7, 0


@pytest.fixture
async def held(harness: Harness) -> AsyncIterator[tuple[LogManager, Gate]]:
    storage = harness.storage
    assert storage is not None
    await storage.create_topic("t", 1)
    async with rounds_held(storage) as gate:
        yield storage, gate


def durable_at_write(storage: LogManager) -> bool:
    # FileStorage's writes wait for an fsync round, PostgresStorage's for a committed round.
    return isinstance(storage, MemoryStorage)


def txn_batch(n: int = 2) -> bytes:
    return make_batch(n, producer_id=PID, producer_epoch=EPOCH, base_sequence=0, transactional=True)


def commit_marker() -> bytes:
    return rb.build_control_batch(rb.ControlType.COMMIT, producer_id=PID, producer_epoch=EPOCH, coordinator_epoch=0,
                                  timestamp=1_700_000_000_000)


async def test_a_write_is_visible_once_durable(held: tuple[LogManager, Gate]) -> None:
    storage, gate = held
    log = storage.log("t", 0)
    seen = storage.appended.changes
    result = await log.append(make_batch(3))
    assert (result.base_offset, result.last_offset, log.log_end_offset) == (0, 2, 3)
    if durable_at_write(storage):
        assert log.high_watermark == 3
        assert storage.appended.changes > seen
        return
    # Written, not durable: no consumer reads it, nothing parked on the partition wakes.
    assert log.high_watermark == 0
    assert log.last_stable_offset == 0
    assert (await log.read(0, 1 << 20)).records == b""
    read = await log.read(0, 1 << 20)
    assert (read.high_watermark, read.log_end_offset) == (0, 3)
    assert storage.appended.changes == seen
    # The round covering the write moves the high watermark and wakes the partition's fetches.
    woken = asyncio.ensure_future(storage.appended.wait([("t", 0)], 10))
    gate.release.set()
    assert await woken
    assert log.high_watermark == 3
    data = (await log.read(0, 1 << 20)).records
    assert [r.offset for r in rb.decode_batches(data)[0].records] == [0, 1, 2]


async def test_a_write_nobody_waits_for_starts_its_own_round(harness: Harness) -> None:
    storage = harness.storage
    assert storage is not None
    await storage.create_topic("t", 1)
    log = storage.log("t", 0)
    rounds = storage.flusher.rounds
    await log.append(make_batch(2))
    # No sync() is called: the append itself asked for the round.
    while log.high_watermark < 2:
        assert await storage.appended.wait([("t", 0)], 10)
    if not durable_at_write(storage):
        # The PostgreSQL engine moves the high watermark as its transaction commits and
        # counts the round when the flusher hears of it, a turn of the loop later.
        await async_wait_until(lambda: storage.flusher.rounds > rounds, what="the round counted")
        assert storage.flusher.rounds == rounds + 1
    assert [r.offset for r in rb.decode_batches((await log.read(0, 1 << 20)).records)[0].records] == [0, 1]


async def test_sync_makes_every_write_so_far_visible(harness: Harness) -> None:
    storage = harness.storage
    assert storage is not None
    await storage.create_topic("t", 2)
    for p in (0, 1):
        for _ in range(3):
            await storage.log("t", p).append(make_batch(2))
    await storage.sync()
    assert [storage.log("t", p).high_watermark for p in (0, 1)] == [6, 6]


async def test_a_durable_append_returns_visible(held: tuple[LogManager, Gate]) -> None:
    storage, gate = held
    log = storage.log("t", 0)
    task = asyncio.ensure_future(log.append(make_batch(2), durable=True))
    await asyncio.sleep(0)
    assert not task.done() or durable_at_write(storage)
    gate.release.set()
    await task
    assert log.high_watermark == 2


async def test_list_offsets_latest_waits_for_the_round_already_covering_written_records(
    held: tuple[LogManager, Gate],
) -> None:
    storage, gate = held
    log = storage.log("t", 0)
    await log.append(make_batch(4))
    # Not a consumer's request: the log end, at once.
    assert (await log.list_offset(LATEST_TIMESTAMP, isolation_level=None)).offset == 4  # type: ignore[union-attr]
    latest = asyncio.ensure_future(log.list_offset(LATEST_TIMESTAMP, isolation_level=READ_UNCOMMITTED))
    for _ in range(5):
        await asyncio.sleep(0)
    if not durable_at_write(storage):
        assert not latest.done()
        gate.release.set()
    found = await latest
    assert found is not None and found.offset == 4


async def test_delete_records_waits_for_written_records_to_be_visible(held: tuple[LogManager, Gate]) -> None:
    storage, gate = held
    log = storage.log("t", 0)
    await log.append(make_batch(2))
    deleted = asyncio.ensure_future(log.delete_records_before(-1))  # -1: the high watermark
    for _ in range(5):
        await asyncio.sleep(0)
    if not durable_at_write(storage):
        assert not deleted.done()
        assert log.log_start_offset == 0
        gate.release.set()
    assert await deleted == 2
    with pytest.raises(OffsetOutOfRangeError):
        await log.delete_records_before(3)


async def test_a_marker_decides_its_transaction_only_once_durable(harness: Harness) -> None:
    storage = harness.storage
    assert storage is not None
    await storage.create_topic("t", 1)
    log = storage.log("t", 0)
    await log.append(txn_batch(), durable=True)
    assert (log.high_watermark, log.last_stable_offset) == (2, 0)
    async with rounds_held(storage) as gate:
        marker = asyncio.ensure_future(log.append(commit_marker(), durable=True, origin=AppendOrigin.COORDINATOR))
        await asyncio.sleep(0)
        assert log.log_end_offset == 3
        if not durable_at_write(storage):
            # The marker is written but a crash could still undo it: the transaction stays undecided.
            assert (log.high_watermark, log.last_stable_offset) == (2, 0)
            assert (await log.read(0, 1 << 20, upper_bound=log.last_stable_offset)).records == b""
        gate.release.set()
        await marker
    assert (log.high_watermark, log.last_stable_offset) == (3, 3)
    found = await log.list_offset(LATEST_TIMESTAMP, isolation_level=READ_COMMITTED)
    assert found is not None and found.offset == 3


async def test_a_failed_round_leaves_its_writes_invisible(tmp_path: Path) -> None:
    h = Harness("file", tmp_path / "data")
    storage = await h.open()
    try:
        await storage.create_topic("t", 1)
        log = storage.log("t", 0)
        await log.append(make_batch(1), durable=True)
        gate = Gate(asyncio.get_running_loop(), asyncio.Event(), asyncio.Event(), fail=True)
        log.flusher.mark_dirty(gate)  # the round of the log's own files
        await log.append(make_batch(2))
        await asyncio.wait_for(gate.started.wait(), 10)
        gate.release.set()
        await log.wait_visible(10)
        assert (log.high_watermark, log.log_end_offset) == (1, 3)
        assert (await log.read(1, 1 << 20)).records == b""
    finally:
        await storage.close()


async def test_recovery_makes_everything_on_disk_visible(harness: Harness) -> None:
    storage = harness.storage
    assert storage is not None
    await storage.create_topic("t", 1)
    await storage.log("t", 0).append(make_batch(3))
    if isinstance(storage, FileStorage):
        await storage.abort()  # a crash of the process: the page cache keeps the write
        storage = await harness.open()
    else:
        storage = await harness.reopen()
    log = storage.log("t", 0)
    assert isinstance(log, Log)
    assert (log.high_watermark, log.log_end_offset) == (3, 3)


async def test_an_unclean_start_fsyncs_what_it_makes_visible(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a crash the tail past the recovery point may be in the page cache only (a broker
    halted by a failed fsync): it is made durable before it is visible."""
    h = Harness("file", tmp_path / "data", segment_bytes=1000)
    storage = await h.open()
    await storage.create_topic("t", 1)
    for _ in range(6):
        await storage.log("t", 0).append(make_batch(2, value_size=200))
    assert isinstance(storage, FileStorage)
    await storage.abort()
    synced: list[str] = []
    real_sync = FileStore.sync

    def spy(self: FileStore) -> None:
        synced.append(os.path.basename(self.path))
        real_sync(self)

    monkeypatch.setattr(FileStore, "sync", spy)
    storage = await h.open()
    try:
        log = storage.log("t", 0)
        assert (log.high_watermark, log.log_end_offset) == (12, 12)
        # No recovery point was written: every segment was recovered, and each log file synced.
        assert {n for n in synced if n.endswith(".log")} == {f"{base:020d}.log" for base in log.segment_base_offsets()}
        assert len(log.segment_base_offsets()) > 1
    finally:
        await storage.close()


async def test_a_lazy_write_shares_the_round_of_a_durable_write_in_the_same_turn(harness: Harness) -> None:
    storage = harness.storage
    assert storage is not None
    await storage.create_topic("t", 2)
    log = storage.log("t", 0)
    rounds = storage.flusher.rounds
    await log.append(txn_batch(), lazy=True)
    if not durable_at_write(storage):
        assert log.high_watermark == 0
    # Another partition's durable append (EndTxn's PrepareCommit, in the broker) covers it.
    await storage.log("t", 1).append(make_batch(1), durable=True)
    assert log.high_watermark == 2
    if not durable_at_write(storage):
        # The file engine has a lane of rounds per partition (PartitionedFlusher): the
        # append's sync starts the lazy write's round at once, beside its own.
        lanes = 2 if isinstance(storage.flusher, PartitionedFlusher) else 1
        assert storage.flusher.rounds == rounds + lanes


async def test_a_lazy_write_is_visible_once_its_own_round_ends(harness: Harness) -> None:
    storage = harness.storage
    assert storage is not None
    await storage.create_topic("t", 1)
    log = storage.log("t", 0)
    await log.append(txn_batch(), lazy=True)
    while log.high_watermark < 2:
        assert await storage.appended.wait([("t", 0)], 10)
    await log.append(make_batch(3, producer_id=PID, producer_epoch=EPOCH, base_sequence=2, transactional=True),
                     lazy=True)
    found = await asyncio.wait_for(log.list_offset(LATEST_TIMESTAMP, isolation_level=READ_UNCOMMITTED), 5)
    assert found is not None and found.offset == 5


async def test_a_partition_does_not_wait_for_another_partitions_round(tmp_path: Path) -> None:
    """The file engine's lanes (storage.flusher.PartitionedFlusher): a durable write to one
    partition is answered while another partition's round is held, and becomes visible;
    a sync of the whole storage still waits for the held round."""
    h = Harness("file", tmp_path / "data")
    storage = await h.open()
    try:
        await storage.create_topic("t", 2)
        busy, quiet = storage.log("t", 0), storage.log("t", 1)
        gate = Gate(asyncio.get_running_loop(), asyncio.Event(), asyncio.Event())
        busy.flusher.mark_dirty(gate)
        held = asyncio.ensure_future(busy.sync())
        await asyncio.wait_for(gate.started.wait(), 10)
        busy.append_nowait(make_batch(2))
        quiet.append_nowait(make_batch(3))
        await asyncio.wait_for(quiet.sync(), 10)
        assert (quiet.high_watermark, busy.high_watermark) == (3, 0)
        everything = asyncio.ensure_future(storage.sync())
        for _ in range(20):
            await asyncio.sleep(0)
        assert not held.done() and not everything.done()
        gate.release.set()
        await asyncio.wait_for(everything, 10)
        assert held.done() and (quiet.high_watermark, busy.high_watermark) == (3, 2)
    finally:
        gate.release.set()
        await storage.close()
