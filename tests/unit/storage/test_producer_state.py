"""Producer state at the partition: idempotence, transactions, LSO, aborted-transaction
index, snapshots and replay, expiry. Runs against both engines where it makes sense."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from protocol import record_batch as rb
from protocol.limits import INT32_MAX
from storage.clock import ManualClock
from storage.engine import AbortedTransaction, AppendOrigin, AppendResult
from storage.errors import (
    InvalidProducerEpochError,
    InvalidTxnStateError,
    OutOfOrderSequenceError,
    TransactionCoordinatorFencedError,
)
from storage.file_storage import FileStorage
from storage.log import Log
from storage.producer_state import (
    EXPIRATION_CHECK_INTERVAL_MS,
    decode_snapshot,
    encode_snapshot,
    read_control_record,
)
from storage.txn_index import ENTRY_SIZE
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.unit.storage.storage_helpers import Harness, make_batch

PID = 1000
TS = 1_700_000_000_000


def data(seq: int, n: int = 3, *, pid: int = PID, epoch: int = 0, txn: bool = False) -> bytes:
    return make_batch(n, producer_id=pid, producer_epoch=epoch, base_sequence=seq, transactional=txn)


def marker(commit: bool, *, pid: int = PID, epoch: int = 0, coordinator_epoch: int = 0) -> bytes:
    return rb.build_control_batch(
        rb.ControlType.COMMIT if commit else rb.ControlType.ABORT,
        producer_id=pid, producer_epoch=epoch, coordinator_epoch=coordinator_epoch, timestamp=TS,
    )


async def new_log(h: Harness, topic: str = "t") -> Log:
    assert h.storage is not None
    await h.storage.create_topic(topic, 1)
    return h.storage.log(topic, 0)


async def end(log: Log, commit: bool, **kwargs: int) -> AppendResult:
    return await log.append(marker(commit, **kwargs), origin=AppendOrigin.COORDINATOR, durable=True)


# --- idempotence ----------------------------------------------------------------------


async def test_duplicates_of_the_last_five_batches_keep_their_offsets(harness: Harness) -> None:
    log = await new_log(harness)
    first = [await log.append(data(3 * i), durable=True) for i in range(6)]
    end_offset = log.log_end_offset
    for i in range(1, 6):
        again = await log.append(data(3 * i), durable=True)
        assert (again.base_offset, again.last_offset) == (first[i].base_offset, first[i].last_offset)
    assert log.log_end_offset == end_offset
    # The sixth-oldest batch is no longer cached: it is out of order, not a duplicate.
    with pytest.raises(OutOfOrderSequenceError):
        await log.append(data(0), durable=True)
    assert log.log_end_offset == end_offset
    assert (await log.append(data(18), durable=True)).base_offset == end_offset


async def test_duplicate_must_match_the_whole_sequence_range(harness: Harness) -> None:
    log = await new_log(harness)
    await log.append(data(0, 3), durable=True)
    with pytest.raises(OutOfOrderSequenceError):
        await log.append(data(0, 2), durable=True)


async def test_sequence_gap_is_out_of_order(harness: Harness) -> None:
    log = await new_log(harness)
    await log.append(data(0), durable=True)
    with pytest.raises(OutOfOrderSequenceError) as exc:
        await log.append(data(4), durable=True)
    assert exc.value.error_code == 45
    assert log.log_end_offset == 3


async def test_old_epoch_is_refused_and_a_new_epoch_starts_at_zero(harness: Harness) -> None:
    log = await new_log(harness)
    await log.append(data(0, epoch=1), durable=True)
    with pytest.raises(InvalidProducerEpochError) as exc:
        await log.append(data(3, epoch=0), durable=True)
    assert exc.value.error_code == 47
    with pytest.raises(OutOfOrderSequenceError):
        await log.append(data(3, epoch=2), durable=True)
    assert (await log.append(data(0, epoch=2), durable=True)).base_offset == 3
    # The old epoch's batches are forgotten with the epoch change.
    with pytest.raises(InvalidProducerEpochError):
        await log.append(data(0, epoch=1), durable=True)


async def test_unknown_producer_may_start_at_any_sequence(harness: Harness) -> None:
    log = await new_log(harness)
    assert (await log.append(data(42), durable=True)).base_offset == 0
    assert (await log.append(data(45), durable=True)).base_offset == 3


async def test_sequence_wraps_after_int32_max(harness: Harness) -> None:
    log = await new_log(harness)
    await log.append(data(INT32_MAX - 1, 2), durable=True)  # last sequence INT32_MAX
    assert (await log.append(data(0, 2), durable=True)).base_offset == 2
    # A batch spanning the wrap: base INT32_MAX-1, three records, last sequence 0.
    await log.append(data(INT32_MAX - 1, 3, pid=7), durable=True)
    again = await log.append(data(INT32_MAX - 1, 3, pid=7), durable=True)
    assert again.base_offset == 4
    assert (await log.append(data(1, 1, pid=7), durable=True)).base_offset == 7


async def test_coordinator_appends_skip_the_sequence_check(harness: Harness) -> None:
    log = await new_log(harness)
    await log.append(data(0, txn=True), origin=AppendOrigin.COORDINATOR, durable=True)
    await log.append(data(0, txn=True), origin=AppendOrigin.COORDINATOR, durable=True)
    assert log.log_end_offset == 6


# --- transactions ---------------------------------------------------------------------


async def test_non_transactional_write_during_a_transaction_is_refused(harness: Harness) -> None:
    log = await new_log(harness)
    await log.append(data(0, txn=True), durable=True)
    with pytest.raises(InvalidTxnStateError) as exc:
        await log.append(data(3), durable=True)
    assert exc.value.error_code == 48


async def test_lso_with_interleaved_transactions(harness: Harness) -> None:
    log = await new_log(harness)
    await log.append(make_batch(1), durable=True)  # 0: plain data
    assert log.last_stable_offset == 1
    await log.append(data(0, 2, pid=1, txn=True), durable=True)  # 1-2
    await log.append(data(0, 1, pid=2, txn=True), durable=True)  # 3
    await log.append(data(2, 1, pid=1, txn=True), durable=True)  # 4
    assert log.last_stable_offset == 1
    assert log.high_watermark == 5
    await end(log, True, pid=1)  # 5
    assert log.last_stable_offset == 3
    await log.append(data(0, 1, pid=3, txn=True), durable=True)  # 6
    await end(log, False, pid=2)  # 7
    assert log.last_stable_offset == 6
    await end(log, False, pid=3)  # 8
    assert log.last_stable_offset == log.high_watermark == 9
    assert log.aborted_transactions(0, 9) == [AbortedTransaction(2, 3), AbortedTransaction(3, 6)]
    # Overlap rule: marker at or after the start, first offset below the end.
    assert log.aborted_transactions(0, 3) == []
    assert log.aborted_transactions(0, 4) == [AbortedTransaction(2, 3)]
    assert log.aborted_transactions(7, 8) == [AbortedTransaction(2, 3), AbortedTransaction(3, 6)]
    assert log.aborted_transactions(8, 9) == [AbortedTransaction(3, 6)]
    assert log.aborted_transactions(9, 20) == []
    # ListOffsets read_committed LATEST follows the LSO.
    await log.append(data(0, 1, pid=4, txn=True), durable=True)  # 9
    latest = await log.list_offset(-1, isolation_level=1)
    assert latest is not None and latest.offset == 9


async def test_marker_without_data_changes_nothing(harness: Harness) -> None:
    log = await new_log(harness)
    await end(log, False)
    assert log.last_stable_offset == 1
    assert log.aborted_transactions(0, 10) == []


async def test_marker_epoch_checks(harness: Harness) -> None:
    log = await new_log(harness)
    await log.append(data(0, epoch=3, txn=True), durable=True)
    with pytest.raises(InvalidProducerEpochError):
        await end(log, False, epoch=2)
    await end(log, False, epoch=3, coordinator_epoch=5)
    with pytest.raises(TransactionCoordinatorFencedError) as exc:
        await end(log, False, epoch=3, coordinator_epoch=4)
    assert exc.value.error_code == 52
    # A marker with a bumped epoch fences the old epoch's data.
    await end(log, False, epoch=4, coordinator_epoch=5)
    with pytest.raises(InvalidProducerEpochError):
        await log.append(data(3, epoch=3, txn=True), durable=True)


async def test_transaction_continues_sequences_after_a_commit(harness: Harness) -> None:
    log = await new_log(harness)
    await log.append(data(0, txn=True), durable=True)
    await end(log, True)
    assert (await log.append(data(3, txn=True), durable=True)).base_offset == 4
    assert log.last_stable_offset == 4


def test_read_control_record() -> None:
    ctype, epoch = read_control_record(marker(False, coordinator_epoch=77))
    assert (ctype, epoch) == (rb.ControlType.ABORT, 77)
    assert read_control_record(b"\x00" * 10) == (None, -1)


# --- persistence ----------------------------------------------------------------------


async def build_state(log: Log) -> None:
    """pid 1: committed; pid 2: aborted; pid 3: still open; pid 4: idempotent only."""
    await log.append(data(0, 2, pid=1, txn=True), durable=True)  # 0-1
    await log.append(data(0, 2, pid=2, txn=True), durable=True)  # 2-3
    await end(log, True, pid=1)  # 4
    await log.append(data(0, 2, pid=3, txn=True), durable=True)  # 5-6
    await end(log, False, pid=2)  # 7
    await log.append(data(0, 2, pid=4), durable=True)  # 8-9
    await log.append(data(2, 2, pid=4), durable=True)  # 10-11


async def check_state(log: Log) -> None:
    assert log.log_end_offset == 12
    assert log.last_stable_offset == 5
    assert log.aborted_transactions(0, 12) == [AbortedTransaction(2, 2)]
    again = await log.append(data(0, 2, pid=4), durable=True)  # still a cached duplicate
    assert again.base_offset == 8
    with pytest.raises(OutOfOrderSequenceError):
        await log.append(data(7, 2, pid=4), durable=True)
    with pytest.raises(InvalidTxnStateError):
        await log.append(data(2, 1, pid=3), durable=True)
    await end(log, False, pid=3)  # 12
    assert log.aborted_transactions(0, 13) == [AbortedTransaction(2, 2), AbortedTransaction(3, 5)]
    assert log.last_stable_offset == 13


@pytest.mark.parametrize("segment_bytes", [None, 200])
async def test_state_survives_a_clean_reopen(harness: Harness, segment_bytes: int | None) -> None:
    harness.segment_bytes = segment_bytes
    await harness.reopen()
    await build_state(await new_log(harness))
    storage = await harness.reopen()
    await check_state(storage.log("t", 0))


@pytest.mark.parametrize("segment_bytes", [None, 200])
async def test_memory_state_rebuilt_without_a_clean_close(tmp_path: Path, segment_bytes: int | None) -> None:
    h = Harness("memory", tmp_path, segment_bytes=segment_bytes)
    await h.open()
    await build_state(await new_log(h))
    h.state.snapshots.clear()  # nothing written at close: the log alone must do
    await h.open()
    assert h.storage is not None
    await check_state(h.storage.log("t", 0))


async def crash(storage: FileStorage, root: Path, *, keep_recovery_point: bool = False) -> None:
    await storage.checkpoint()
    await storage.abort()
    if not keep_recovery_point:
        (root / "t-0" / "recovery-point").unlink()


@pytest.mark.parametrize("segment_bytes", [None, 200])
@pytest.mark.parametrize("keep_recovery_point", [False, True])
async def test_state_rebuilt_after_a_crash(tmp_path: Path, segment_bytes: int | None,
                                           keep_recovery_point: bool) -> None:
    root = tmp_path / "d"
    s = await FileStorage.open(root, clock=ManualClock(), segment_bytes_override=segment_bytes, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 1)
    await build_state(s.log("t", 0))
    await crash(s, root, keep_recovery_point=keep_recovery_point)
    s = await FileStorage.open(root, clock=ManualClock(), segment_bytes_override=segment_bytes, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await check_state(s.log("t", 0))
    await s.close()


async def test_corrupt_snapshots_are_ignored(tmp_path: Path) -> None:
    root = tmp_path / "d"
    s = await FileStorage.open(root, clock=ManualClock(), segment_bytes_override=200, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 1)
    await build_state(s.log("t", 0))
    await s.close()
    snapshots = sorted((root / "t-0").glob("*.snapshot"))
    assert snapshots and snapshots[-1].name == f"{12:020d}.snapshot"
    for path in snapshots:
        raw = bytearray(path.read_bytes())
        raw[-1] ^= 0xFF
        path.write_bytes(bytes(raw))
    s = await FileStorage.open(root, clock=ManualClock(), segment_bytes_override=200, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await check_state(s.log("t", 0))
    await s.close()


async def test_truncated_tail_drops_the_state_of_lost_batches(tmp_path: Path) -> None:
    root = tmp_path / "d"
    s = await FileStorage.open(root, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    await log.append(data(0, 2, pid=1), durable=True)  # 0-1
    await log.append(data(0, 2, pid=2, txn=True), durable=True)  # 2-3
    await end(log, False, pid=2)  # 4: torn below
    await log.append(data(2, 2, pid=1), durable=True)  # 5-6: torn below
    await crash(s, root)
    seg = root / "t-0" / f"{0:020d}.log"
    sizes = [h.size for _, h in rb.iter_batches(seg.read_bytes())]
    with open(seg, "r+b") as f:
        f.truncate(sum(sizes[:2]) + 10)
    s = await FileStorage.open(root, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    log = s.log("t", 0)
    assert log.log_end_offset == 4
    # The abort is gone: pid 2's transaction is open again and holds the LSO.
    assert log.last_stable_offset == 2
    assert log.aborted_transactions(0, 10) == []
    # pid 1's lost batch is not a duplicate any more: it is simply the next one.
    assert (await log.append(data(2, 2, pid=1), durable=True)).base_offset == 4
    await s.close()


async def test_txn_index_file_format_and_retention(tmp_path: Path) -> None:
    root = tmp_path / "d"
    s = await FileStorage.open(root, clock=ManualClock(), segment_bytes_override=200, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    await log.append(data(0, 2, txn=True), durable=True)
    await end(log, False)
    index = root / "t-0" / f"{log.segment_base_offsets()[-1]:020d}.txnindex"
    assert index.stat().st_size == ENTRY_SIZE
    raw = index.read_bytes()
    assert raw[:2] == b"\x00\x00"
    assert int.from_bytes(raw[2:10], "big") == PID
    assert int.from_bytes(raw[10:18], "big") == 0  # first offset
    assert int.from_bytes(raw[18:26], "big") == 2  # the marker
    assert int.from_bytes(raw[26:34], "big") == 3  # LSO once it completed
    for i in range(10):
        await log.append(make_batch(3, key_prefix=str(i).encode()), durable=True)
    assert len(log.segment_base_offsets()) > 2
    await log.delete_records_before(log.high_watermark)
    assert not index.exists()
    assert log.aborted_transactions(0, log.log_end_offset) == []
    await s.close()


async def test_a_txn_index_entry_lives_in_the_segment_of_its_marker(tmp_path: Path) -> None:
    root = tmp_path / "d"
    s = await FileStorage.open(root, clock=ManualClock(), segment_bytes_override=300, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    await log.append(data(0, 2, pid=9, txn=True), durable=True)  # 0-1, first segment
    for i in range(6):
        await log.append(make_batch(2, key_prefix=str(i).encode()), durable=True)
    await end(log, False, pid=9)
    bases = log.segment_base_offsets()
    assert len(bases) > 1
    marker_offset = log.log_end_offset - 1
    assert log.aborted_transactions(marker_offset, marker_offset + 1) == [AbortedTransaction(9, 0)]
    assert log.aborted_transactions(0, 1) == [AbortedTransaction(9, 0)]
    assert (root / "t-0" / f"{bases[-1]:020d}.txnindex").exists()
    await s.close()


def test_snapshot_round_trip_and_corruption() -> None:
    from storage.producer_state import BatchMetadata, ProducerStateEntry

    entry = ProducerStateEntry(5, 2, coordinator_epoch=3, last_timestamp=TS, current_txn_first_offset=17)
    entry.batches.append(BatchMetadata(0, 4, 10, 14, -1))
    blob = encode_snapshot([entry])
    decoded = decode_snapshot(blob)
    assert decoded is not None and decoded[0] == entry
    assert decode_snapshot(blob[:-1]) is None
    assert decode_snapshot(os.urandom(len(blob))) is None
    assert decode_snapshot(b"") is None


# --- expiry ---------------------------------------------------------------------------


async def test_idle_producers_expire(harness: Harness) -> None:
    log = await new_log(harness)
    day = 86_400_000
    await log.append(data(0, 1, pid=1), durable=True)
    await log.append(data(0, 1, pid=2, txn=True), durable=True)
    harness.clock.advance(day - 1)
    with pytest.raises(OutOfOrderSequenceError):
        await log.append(make_batch(1, ts=harness.clock.now_ms(), producer_id=1, producer_epoch=0,
                                    base_sequence=5), durable=True)
    harness.clock.advance(1)
    # Idle a day, but forgotten only by the periodic check (Kafka's
    # PeriodicProducerExpirationCheck), which ran at the append above: sequences still count.
    with pytest.raises(OutOfOrderSequenceError):
        await log.append(make_batch(1, ts=harness.clock.now_ms(), producer_id=1, producer_epoch=0,
                                    base_sequence=5), durable=True)
    harness.clock.advance(EXPIRATION_CHECK_INTERVAL_MS)
    # Expired: any sequence is accepted again.
    r = await log.append(make_batch(1, ts=harness.clock.now_ms(), producer_id=1, producer_epoch=0,
                                    base_sequence=5), durable=True)
    assert r.base_offset == 2
    # A producer with an open transaction never expires.
    assert log.producer_state.has_ongoing_txn(2)
    assert 2 in log.producer_state.producers
    assert log.last_stable_offset == 1


async def test_a_batch_with_an_old_create_time_keeps_its_producers_sequences(harness: Harness) -> None:
    # kafkajs's own produce spec writes CreateTime 2017-11-06 with an idempotent producer. The
    # producer's age counts from that timestamp, yet Kafka forgets it only at its periodic
    # check: until then its sequences are enforced and its duplicates recognised.
    log = await new_log(harness)
    old = harness.clock.now_ms() - 10 * 86_400_000

    def batch(seq: int) -> bytes:
        return make_batch(3, ts=old, producer_id=PID, producer_epoch=0, base_sequence=seq)

    assert (await log.append(batch(0), durable=True)).base_offset == 0
    for seq in (1, 5):
        with pytest.raises(OutOfOrderSequenceError):
            await log.append(batch(seq), durable=True)
    again = await log.append(batch(0), durable=True)
    assert (again.base_offset, again.last_offset) == (0, 2)
    assert (await log.append(batch(3), durable=True)).base_offset == 3
    assert log.log_end_offset == 6
