"""Log compaction (storage.cleaner): latest value per key, tombstones, gaps, crash-safe
swaps, transactions, both engines."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from protocol import record_batch as rb
from storage.cleaner import clean_log
from storage.engine import READ_COMMITTED, AppendOrigin
from storage.file_storage import FileStorage, _FilePersistence
from storage.log import Log
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.unit.storage.storage_helpers import Harness

TOPIC = "compacted"
DAY = 86_400_000


async def open_log(h: Harness, **configs: str) -> Log:
    storage = h.storage
    assert storage is not None
    await storage.create_topic(TOPIC, 1, {"cleanup.policy": "compact", **configs})
    log = storage.log(TOPIC, 0)
    assert isinstance(log, Log)
    return log


def batch(h: Harness, *records: tuple[bytes | None, bytes | None], **kwargs: object) -> bytes:
    now = h.clock.now_ms()
    return rb.build_batch([rb.Record(k, v, timestamp=now) for k, v in records], **kwargs)  # type: ignore[arg-type]


async def put(h: Harness, log: Log, key: bytes | None, value: bytes | None) -> int:
    return (await log.append(batch(h, (key, value)), durable=True)).base_offset


async def all_records(log: Log, start: int | None = None) -> list[rb.Record]:
    """Every record from `start` (default: log start), walking fetches across gaps."""
    out: list[rb.Record] = []
    offset = log.log_start_offset if start is None else start
    while offset < log.log_end_offset:
        result = await log.read(offset, 1 << 20)
        if not result.records:
            break
        for b in rb.decode_batches(result.records):
            out.extend(r for r in b.records if r.offset >= offset)
            offset = b.header.next_offset
    return out


def latest(records: list[rb.Record]) -> dict[bytes | None, tuple[int, bytes | None]]:
    found: dict[bytes | None, tuple[int, bytes | None]] = {}
    for r in records:
        found[r.key] = (r.offset, r.value)
    return found


async def compact(h: Harness, log: Log, *, force: bool = False) -> object:
    return await clean_log(log, h.clock.now_ms(), force=force)


# --- basics ---------------------------------------------------------------------------


async def test_latest_value_per_key_kept_with_its_offset(harness: Harness) -> None:
    log = await open_log(harness)
    for i in range(40):
        await put(harness, log, b"k%d" % (i % 4), b"v%d" % i)
        if i % 10 == 9:
            log.roll()
    await put(harness, log, b"k0", b"active")  # in the active segment: never cleaned
    before = await all_records(log)
    active = log.active_segment
    active_size = active.size
    stats = await compact(harness, log)
    assert stats is not None
    after = await all_records(log)
    assert log.active_segment is active and active.size == active_size
    # Per key: the latest record of the cleaned range survives with its original offset.
    expected = {(r.offset, r.key, r.value) for r in before if r.offset >= 36}
    assert {(r.offset, r.key, r.value) for r in after} == expected
    assert latest(after) == latest(before)
    assert log.log_end_offset == 41 and log.log_start_offset == 0
    assert log.cleaner_checkpoint == 40
    # A second pass finds nothing dirty.
    assert await compact(harness, log) is None


async def test_swap_wakes_parked_fetches(harness: Harness) -> None:
    """Offsets a parked fetch was waiting past may now be gone: it re-reads."""
    log = await open_log(harness)
    for i in range(40):
        await put(harness, log, b"k%d" % (i % 4), b"v%d" % i)
        if i % 10 == 9:
            log.roll()
    storage = harness.storage
    assert storage is not None
    waiter = asyncio.ensure_future(storage.appended.wait([(TOPIC, 0)], 5.0))
    await asyncio.sleep(0)
    assert not waiter.done()
    assert await compact(harness, log) is not None
    for _ in range(3):  # the wake-up reaches the waiting task in a few loop turns
        await asyncio.sleep(0)
    assert waiter.done() and waiter.result()


async def test_fetch_from_any_offset_across_gaps(harness: Harness) -> None:
    log = await open_log(harness)
    for i in range(30):
        await put(harness, log, b"k%d" % (i % 3), b"v%d" % i)
        if i % 7 == 6:
            log.roll()
    log.roll()
    before = await all_records(log)
    await compact(harness, log)
    after = await all_records(log)
    kept = [r.offset for r in after]
    assert kept == [27, 28, 29]
    for offset in range(0, 30):
        result = await log.read(offset, 1 << 20)
        first = rb.decode_batches(result.records)[0].records[0]
        # The first record at or after the offset asked for.
        assert first.offset == min(o for o in kept if o >= offset)
    assert latest(after) == latest(before)


async def test_dirty_ratio_and_lag(harness: Harness) -> None:
    log = await open_log(harness, **{"min.compaction.lag.ms": "60000"})
    for i in range(10):
        await put(harness, log, b"k", b"v%d" % i)
    log.roll()
    assert await compact(harness, log) is None  # younger than min.compaction.lag.ms
    harness.clock.advance(60_001)
    assert await compact(harness, log) is not None
    # Now clean: 1 record. A little dirt below the ratio is left alone.
    await put(harness, log, b"k2", b"x" * 2)
    log.roll()
    harness.clock.advance(60_001)
    await harness.storage.alter_topic_configs(TOPIC, {"min.cleanable.dirty.ratio": "0.9"})  # type: ignore[union-attr]
    log = harness.storage.log(TOPIC, 0)  # type: ignore[union-attr,assignment]
    assert await compact(harness, log) is None
    assert await compact(harness, log, force=True) is not None


async def test_delete_policy_is_not_compacted(harness: Harness) -> None:
    storage = harness.storage
    assert storage is not None
    await storage.create_topic("plain", 1)
    log = storage.log("plain", 0)
    assert isinstance(log, Log)
    for i in range(5):
        await log.append(batch(harness, (b"k", b"v%d" % i)), durable=True)
    log.roll()
    assert await storage.compact() == 0
    assert len(await all_records(log)) == 5


async def test_compact_delete_applies_retention_too(harness: Harness) -> None:
    log = await open_log(harness, **{"cleanup.policy": "compact,delete", "retention.ms": "1000"})
    for i in range(4):
        await put(harness, log, b"k%d" % i, b"v")
    log.roll()
    storage = harness.storage
    assert storage is not None
    assert await storage.compact() == 1
    harness.clock.advance(2000)
    await put(harness, log, b"k", b"new")
    assert await storage.enforce_retention() == 1
    assert [r.value for r in await all_records(log)] == [b"new"]


# --- tombstones -----------------------------------------------------------------------


async def test_tombstones_kept_for_delete_retention_then_removed(harness: Harness) -> None:
    log = await open_log(harness)
    await put(harness, log, b"a", b"1")
    await put(harness, log, b"b", b"1")
    await put(harness, log, b"a", None)  # tombstone
    log.roll()
    await put(harness, log, b"c", b"active")
    await compact(harness, log)
    after = await all_records(log)
    assert [(r.offset, r.key, r.value) for r in after] == [(1, b"b", b"1"), (2, b"a", None), (3, b"c", b"active")]
    # Timestamps are unchanged although the tombstone's batch now carries its delete horizon.
    tomb = await log.read(2, 1 << 20)
    header = rb.BatchHeader.parse(tomb.records)
    assert header.has_delete_horizon and header.base_timestamp == harness.clock.now_ms() + DAY
    assert rb.decode_batch(tomb.records).records[0].timestamp == harness.clock.now_ms()
    harness.clock.advance(DAY - 1)
    assert await compact(harness, log) is None  # horizon not reached: nothing due
    assert await compact(harness, log, force=True) is not None
    assert [r.key for r in await all_records(log)] == [b"b", b"a", b"c"]
    harness.clock.advance(1)
    assert await compact(harness, log) is not None  # the horizon passing makes the log due
    assert [(r.key, r.value) for r in await all_records(log)] == [(b"b", b"1"), (b"c", b"active")]


async def test_horizon_survives_a_reopen(harness: Harness) -> None:
    log = await open_log(harness)
    await put(harness, log, b"a", None)
    await put(harness, log, b"b", b"1")
    log.roll()
    await compact(harness, log)
    log = (await harness.reopen()).log(TOPIC, 0)  # type: ignore[assignment]
    assert log.cleaner_checkpoint == 2
    assert await compact(harness, log) is None
    harness.clock.advance(DAY)
    assert await compact(harness, log) is not None
    assert [r.key for r in await all_records(log)] == [b"b"]


async def test_compressed_batches_keep_their_codec(harness: Harness) -> None:
    log = await open_log(harness)
    records = [(b"k%d" % (i % 3), b"v%d" % i) for i in range(9)]
    await log.append(batch(harness, *records, compression=rb.Compression.ZSTD), durable=True)
    log.roll()
    await compact(harness, log)
    result = await log.read(0, 1 << 20)
    batches = rb.decode_batches(result.records)
    assert [b.header.compression for b in batches] == [rb.Compression.ZSTD]
    assert [(r.offset, r.value) for r in batches[0].records] == [(6, b"v6"), (7, b"v7"), (8, b"v8")]


async def test_cleaned_log_survives_reopen(harness: Harness) -> None:
    harness.segment_bytes = 400
    await harness.reopen()
    log = await open_log(harness)
    for i in range(60):
        await put(harness, log, b"k%d" % (i % 5), b"value-%d" % i)
    before = await all_records(log)
    segments_before = len(log.segments)
    await compact(harness, log)
    # As in Kafka, groups are sized by the segments' sizes before cleaning: the cleaned,
    # small segments are merged by the next pass.
    await compact(harness, log, force=True)
    assert len(log.segments) < segments_before
    after = await all_records(log)
    log = (await harness.reopen()).log(TOPIC, 0)  # type: ignore[assignment]
    assert await all_records(log) == after
    assert latest(after) == latest(before)
    assert log.log_end_offset == 60
    # Appends continue at the log end.
    assert await put(harness, log, b"k0", b"new") == 60


# --- crash safety (disk engine) -------------------------------------------------------


class Crash(Exception):
    pass


async def crash_during_swap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str) -> tuple[list, list]:
    h = Harness("file", tmp_path / "data", segment_bytes=400)
    await h.open()
    log = await open_log(h)
    for i in range(60):
        await put(h, log, b"k%d" % (i % 5), b"value-%d" % i)
    await h.storage.checkpoint()  # type: ignore[union-attr]
    before = await all_records(log)

    def boom(*_args: object) -> None:
        raise Crash(step)

    real_delete = _FilePersistence.delete_replaced
    if step == "after-one-delete":
        def delete_one(self: _FilePersistence, old: list) -> None:
            real_delete(self, old[:1])
            raise Crash(step)
        monkeypatch.setattr(_FilePersistence, "delete_replaced", delete_one)
    else:
        monkeypatch.setattr(_FilePersistence, step, boom)
    with pytest.raises(Exception, match=step):
        await compact(h, log)
    storage = h.storage
    assert isinstance(storage, FileStorage)
    await storage.abort()
    monkeypatch.undo()
    storage = await FileStorage.open(tmp_path / "data", clock=h.clock, segment_bytes_override=400, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    recovered = storage.log(TOPIC, 0)
    names = os.listdir(tmp_path / "data" / f"{TOPIC}-0")
    assert not [n for n in names if n.endswith((".cleaned", ".swap"))]
    records = await all_records(recovered)  # type: ignore[arg-type]
    assert recovered.log_end_offset == 60
    assert await recovered.append(batch(h, (b"k0", b"new")), durable=True) is not None
    await storage.close()
    return before, records


@pytest.mark.parametrize("step", ["stage_swap", "delete_replaced", "after-one-delete", "finish_swap"])
async def test_crash_mid_swap_recovers_a_consistent_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    before, records = await crash_during_swap(tmp_path, monkeypatch, step)
    # Either the old segment or the new one, never a mix: offsets strictly increase, every
    # key's latest value is intact, and nothing new appeared.
    offsets = [r.offset for r in records]
    assert offsets == sorted(set(offsets))
    assert latest(records) == latest(before)
    assert {(r.offset, r.value) for r in records} <= {(r.offset, r.value) for r in before}
    if step == "stage_swap":
        assert records == before  # the .cleaned files were thrown away
    else:
        assert len(records) < len(before)  # the finished .swap won


# --- transactions ---------------------------------------------------------------------


async def txn_batch(h: Harness, log: Log, pid: int, seq: int, *records: tuple[bytes, bytes | None]) -> None:
    await log.append(batch(h, *records, producer_id=pid, producer_epoch=0, base_sequence=seq, transactional=True), durable=True)


async def marker(h: Harness, log: Log, pid: int, commit: bool) -> None:
    control = rb.build_control_batch(
        rb.ControlType.COMMIT if commit else rb.ControlType.ABORT,
        producer_id=pid, producer_epoch=0, coordinator_epoch=0, timestamp=h.clock.now_ms(),
    )
    await log.append(control, origin=AppendOrigin.COORDINATOR, durable=True)


async def committed_view(log: Log) -> list[tuple[int, bytes | None, bytes | None]]:
    """What a read_committed consumer sees: aborted transactions and markers filtered out."""
    out = []
    offset = log.log_start_offset
    bound = log.last_stable_offset
    while offset < bound:
        result = await log.read(offset, 1 << 20, upper_bound=bound)
        if not result.records:
            break
        batches = rb.decode_batches(result.records)
        aborted = log.aborted_transactions(offset, batches[-1].header.next_offset)
        ongoing: set[int] = set()
        starts = sorted(aborted, key=lambda a: a.first_offset)
        for b in batches:
            hdr = b.header
            for a in starts:
                if a.producer_id == hdr.producer_id and a.first_offset <= hdr.base_offset:
                    ongoing.add(a.producer_id)
            if hdr.is_control:
                if rb.parse_control_record(b.records[0]).control_type == rb.ControlType.ABORT:
                    ongoing.discard(hdr.producer_id)
                    starts = [a for a in starts if not (a.producer_id == hdr.producer_id and a.first_offset <= hdr.base_offset)]
            elif not (hdr.is_transactional and hdr.producer_id in ongoing):
                out.extend((r.offset, r.key, r.value) for r in b.records if r.offset >= offset)
            offset = hdr.next_offset
    return out


def compacted(view: list[tuple[int, bytes | None, bytes | None]]) -> dict[bytes | None, bytes | None]:
    return {k: v for _o, k, v in view}


async def test_transactions_committed_kept_aborted_removed_markers_retained(harness: Harness) -> None:
    log = await open_log(harness)
    await put(harness, log, b"a", b"plain-1")
    await txn_batch(harness, log, 1000, 0, (b"a", b"committed"), (b"b", b"committed"))
    await txn_batch(harness, log, 2000, 0, (b"a", b"aborted"), (b"c", b"aborted"))
    await marker(harness, log, 1000, commit=True)
    await marker(harness, log, 2000, commit=False)
    await put(harness, log, b"d", b"plain")
    log.roll()
    await txn_batch(harness, log, 1000, 2, (b"z", b"active"))  # open: never cleaned
    view_before = await committed_view(log)
    assert await compact(harness, log) is not None
    view_after = await committed_view(log)
    assert compacted(view_after) == compacted(view_before)
    assert compacted(view_after) == {b"a": b"committed", b"b": b"committed", b"d": b"plain"}
    raw = [b for b in rb.decode_batches((await log.read(0, 1 << 20)).records)]
    values = [r.value for b in raw if not b.header.is_control for r in b.records]
    assert b"aborted" not in values  # not even for read_uncommitted
    assert b"plain-1" not in values
    # Both markers stay in the first pass: batches of their transactions were there.
    assert sum(b.header.is_control for b in raw) == 2
    kept_txn = [b.header for b in raw if b.header.is_transactional and not b.header.is_control]
    assert all(h.producer_id == 1000 and h.producer_epoch == 0 for h in kept_txn)
    # Second pass: no transaction data left under the markers -> delete horizon stamped.
    assert await compact(harness, log, force=True) is not None
    raw = [b for b in rb.decode_batches((await log.read(0, 1 << 20)).records)]
    markers = [b.header for b in raw if b.header.is_control]
    # The COMMIT marker still has its transaction's records (a, b); the ABORT one has none.
    assert len(markers) == 2 and [m.has_delete_horizon for m in markers] == [False, True]
    harness.clock.advance(DAY)
    assert await compact(harness, log) is not None
    raw = [b for b in rb.decode_batches((await log.read(0, 1 << 20)).records)]
    assert [b.header.producer_id for b in raw if b.header.is_control] == [1000]
    assert log.aborted_transactions(0, log.log_end_offset) == []
    assert compacted(await committed_view(log)) == compacted(view_before)
    # Producer state is intact: the open transaction still pins the LSO; the producer
    # continues its sequence.
    assert log.last_stable_offset == 8
    await txn_batch(harness, log, 1000, 3, (b"z", b"more"))
    await marker(harness, log, 1000, commit=True)
    assert log.last_stable_offset == log.log_end_offset


async def test_read_committed_identical_after_compaction_and_reopen(harness: Harness) -> None:
    harness.segment_bytes = 500
    await harness.reopen()
    log = await open_log(harness)
    seq = {1000: 0, 2000: 0}
    for round_ in range(12):
        for pid in (1000, 2000):
            await txn_batch(harness, log, pid, seq[pid], (b"k%d" % (round_ % 3), b"%d-%d" % (pid, round_)))
            seq[pid] += 1
        await put(harness, log, b"p%d" % (round_ % 2), b"plain-%d" % round_)
        await marker(harness, log, 1000, commit=round_ % 3 != 0)
        await marker(harness, log, 2000, commit=round_ % 2 == 0)
    log.roll()
    view_before = compacted(await committed_view(log))
    for _ in range(3):
        await compact(harness, log, force=True)
        harness.clock.advance(DAY)
    assert compacted(await committed_view(log)) == view_before
    log = (await harness.reopen()).log(TOPIC, 0)  # type: ignore[assignment]
    assert compacted(await committed_view(log)) == view_before
    assert log.last_stable_offset == log.log_end_offset


async def test_read_committed_isolation_constant_is_used() -> None:
    assert READ_COMMITTED == 1
