"""The active segment's preallocated tail (`preallocate`, storage.files.FileStore): zeros
kept ahead of the data never show to a reader, closed segments and a clean shutdown leave
files cut to their data, and a restart after a crash with zeros at the tail gives exactly
the records written before it."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from protocol import record_batch as rb
from storage import files
from storage.clock import ManualClock
from storage.file_storage import FileStorage
from storage.files import ZERO_CHUNK, ZERO_ROUND_MAX, ZERO_STEP_MAX, ZERO_STEP_MIN, FileStore
from storage.log import Log
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.unit.storage.storage_helpers import make_batch


async def open_storage(root: Path, segment_bytes: int | None = None) -> FileStorage:
    return await FileStorage.open(root, clock=ManualClock(), segment_bytes_override=segment_bytes,
                                  producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)


def log_file(root: Path, base: int = 0) -> Path:
    return root / "t-0" / f"{base:020d}.log"


async def append_durably(s: FileStorage, log: Log, batches: list[bytes]) -> list[int]:
    """Each batch in a round of its own, then every extension of the zeros they called for
    done; returns their base offsets."""
    bases = [(await log.append(b, durable=True)).base_offset for b in batches]
    await s.flusher.settle()
    return bases


async def read_all(log: Log) -> bytes:
    data = b""
    offset = log.log_start_offset
    while offset < log.log_end_offset:
        chunk = bytes((await log.read(offset, 1 << 20)).records)
        assert chunk
        data += chunk
        offset = [h for _, h in rb.iter_batches(chunk)][-1].next_offset
    return data


def records(data: bytes) -> list[tuple[int, bytes | None, bytes | None]]:
    return [(r.offset, r.key, r.value) for b in rb.decode_batches(data) for r in b.records]


async def test_zeros_ahead_of_the_data_are_not_read_and_a_crash_restores_exact_records(tmp_path: Path) -> None:
    root = tmp_path / "d"
    s = await open_storage(root)
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    batches = [make_batch(3), make_batch(5, value_size=100), make_batch(2)]
    bases = await append_durably(s, log, batches)
    assert bases == [0, 3, 8]
    data_size = sum(len(b) for b in batches)
    # The file runs past the data, with zeros only; the log knows its data's size.
    assert log_file(root).stat().st_size >= data_size + ZERO_STEP_MIN // 2
    assert log_file(root).read_bytes()[data_size:] == bytes(log_file(root).stat().st_size - data_size)
    assert log.size_bytes == log.active_segment.size == data_size
    written = await read_all(log)
    assert len(written) == data_size
    # An acknowledged write, then a crash: no clean shutdown, the zeros stay on disk.
    extra = make_batch(4)
    await log.append(extra, durable=True)
    expected = records(await read_all(log))
    await s.abort()
    assert log_file(root).stat().st_size > data_size + len(extra)

    s = await open_storage(root)
    log = s.log("t", 0)
    report = s.recovery[("t", 0)]
    assert report.recovered_segments == 1
    assert report.truncated_bytes == 0  # zeros are no data: cut, not counted
    assert log.log_end_offset == 14
    assert records(await read_all(log)) == expected
    assert log_file(root).stat().st_size == data_size + len(extra)
    # Appends carry on where the data ended.
    assert (await log.append(make_batch(1), durable=True)).base_offset == 14
    await s.close()


async def test_a_torn_write_over_the_zeros_is_cut_at_the_last_whole_batch(tmp_path: Path) -> None:
    root = tmp_path / "d"
    s = await open_storage(root)
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    await append_durably(s, log, [make_batch(3), make_batch(3)])
    kept = records(await read_all(log))
    data_size = log.active_segment.size
    file_size = log_file(root).stat().st_size
    await s.abort()
    # Half a batch reached the disk before the power went, zeros after it.
    torn = make_batch(6, value_size=50)
    with open(log_file(root), "r+b") as f:
        f.seek(data_size)
        f.write(torn[: len(torn) // 2])
    assert log_file(root).stat().st_size == file_size

    s = await open_storage(root)
    log = s.log("t", 0)
    assert log.log_end_offset == 6
    assert records(await read_all(log)) == kept
    assert log_file(root).stat().st_size == data_size
    await s.close()


async def test_roll_and_clean_shutdown_leave_files_cut_to_their_data(tmp_path: Path) -> None:
    root = tmp_path / "d"
    segment_bytes = 48 * 1024
    s = await open_storage(root, segment_bytes)
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    batches = [make_batch(4, value_size=1000) for _ in range(30)]  # about 4 KiB each
    await append_durably(s, log, batches)
    assert len(log.segments) > 1
    for segment, path_base in zip(log.segments[:-1], log.segment_base_offsets(), strict=False):
        # Closed: cut to its data, never past the size it rolled at.
        assert log_file(root, path_base).stat().st_size == segment.size <= segment_bytes
    active = log.active_segment
    assert log_file(root, active.base_offset).stat().st_size > active.size  # zeros ahead
    assert log_file(root, active.base_offset).stat().st_size <= segment_bytes  # never past the roll size
    expected = records(await read_all(log))
    assert [o for o, _, _ in expected] == list(range(120))
    sizes = [seg.size for seg in log.segments]
    bases = log.segment_base_offsets()
    await s.close()
    assert [log_file(root, b).stat().st_size for b in bases] == sizes

    s = await open_storage(root, segment_bytes)
    log = s.log("t", 0)
    assert s.clean_start and s.recovery[("t", 0)].recovered_segments == 0
    assert s.recovery[("t", 0)].rebuilt_indexes == []  # every file exactly its data
    assert records(await read_all(log)) == expected
    await s.close()


async def test_a_write_larger_than_the_zeros_ahead_grows_the_file(tmp_path: Path) -> None:
    root = tmp_path / "d"
    s = await open_storage(root)
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    await append_durably(s, log, [make_batch(2), make_batch(2)])
    file_size = log_file(root).stat().st_size
    assert file_size > log.active_segment.size
    big = make_batch(40, value_size=8000)  # well past the zeros
    assert log.active_segment.size + len(big) > file_size
    result = await log.append(big, durable=True)
    assert (result.base_offset, result.last_offset) == (4, 43)
    small = make_batch(3)
    await log.append(small, durable=True)
    data_size = log.active_segment.size
    expected = records(await read_all(log))
    assert [o for o, _, _ in expected] == list(range(47))
    assert log_file(root).stat().st_size >= data_size
    await s.abort()

    s = await open_storage(root)
    log = s.log("t", 0)
    assert records(await read_all(log)) == expected
    assert log_file(root).stat().st_size == data_size
    await s.close()


async def test_preallocate_false_keeps_the_file_at_its_data(tmp_path: Path) -> None:
    root = tmp_path / "d"
    s = await open_storage(root)
    await s.create_topic("t", 1, {"preallocate": "false"})
    log = s.log("t", 0)
    await append_durably(s, log, [make_batch(3) for _ in range(5)])
    assert log_file(root).stat().st_size == log.active_segment.size
    await s.close()


def extend(store: FileStore) -> int:
    """Every slice of the extension due, as the flusher's thread runs them; how many."""
    slices = 1
    while store.extend_ahead():
        slices += 1
    return slices


def test_file_store_appends_over_and_past_its_zeros(tmp_path: Path) -> None:
    path = str(tmp_path / "f")
    store = FileStore(path)
    store.preallocate(64 << 20)
    store.append(b"a" * 100)
    store.sync()
    extend(store)
    assert os.path.getsize(path) == 100 + ZERO_STEP_MIN
    assert store.size == 100
    assert store.read(0, 1 << 20) == b"a" * 100  # never past the data
    store.append(b"b" * 50)  # over the zeros: the file keeps its length
    extend(store)  # more than half a step ahead still: nothing more
    assert os.path.getsize(path) == 100 + ZERO_STEP_MIN
    store.append(b"c" * ZERO_STEP_MIN)  # past them: the file grows with the data
    assert os.path.getsize(path) == store.size == 150 + ZERO_STEP_MIN
    extend(store)  # the next step is twice as long
    assert os.path.getsize(path) == store.size + 2 * ZERO_STEP_MIN
    assert store.read(0, 1 << 20) == b"a" * 100 + b"b" * 50 + b"c" * ZERO_STEP_MIN
    store.append(b"d" * ZERO_STEP_MIN)  # half the step used: nothing more
    extend(store)
    assert os.path.getsize(path) == store.size + ZERO_STEP_MIN
    store.append(b"d")  # less than half ahead: the next step
    extend(store)
    assert os.path.getsize(path) == store.size + 4 * ZERO_STEP_MIN
    # Steps double up to ZERO_STEP_MAX, written ZERO_CHUNK at a time.
    while os.path.getsize(path) - store.size < ZERO_STEP_MAX:
        store.append(b"d" * (os.path.getsize(path) - store.size))
        slices = extend(store)
    assert os.path.getsize(path) - store.size == ZERO_STEP_MAX
    assert slices == ZERO_STEP_MAX // ZERO_CHUNK
    store.seal()
    assert os.path.getsize(path) == store.size
    assert not store.extend_ahead()  # sealed: never again
    assert os.path.getsize(path) == store.size
    store.close()


def test_file_store_zeros_stop_at_the_limit(tmp_path: Path) -> None:
    path = str(tmp_path / "f")
    store = FileStore(path)
    store.preallocate(1000)
    store.append(b"x" * 900)
    extend(store)
    assert os.path.getsize(path) == 1000
    store.truncate(10)  # as recovery cuts: the zeros go too
    assert os.path.getsize(path) == store.size == 10
    store.close()


def test_a_failed_fsync_of_the_zeros_fails_every_later_sync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Linux reports a failed writeback to one fsync only: when the zeros' fsync saw it, it
    may have been the appended data's, so no later round may report that data durable."""
    store = FileStore(str(tmp_path / "f"))
    store.preallocate(1 << 20)
    store.append(b"a" * 100)

    def failing(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    with monkeypatch.context() as patch:
        patch.setattr(files, "_datasync", failing)
        with pytest.raises(OSError):
            store.extend_ahead()
    with pytest.raises(OSError) as failed:
        store.sync()
    assert failed.value.errno == errno.EIO
    store.close()


def test_rounds_of_a_megabyte_get_no_zeros_and_small_ones_do(tmp_path: Path) -> None:
    """Zeros under a round cost a write of their own: where rounds are large that costs
    more than the journal commit it saves."""
    path = str(tmp_path / "f")
    store = FileStore(path)
    store.preallocate(64 << 20)
    for _ in range(3):
        store.append(b"m" * (1 << 20))
        store.sync()
        extend(store)
        assert os.path.getsize(path) == store.size
    rounds = 0
    while os.path.getsize(path) == store.size:  # the average falls as small rounds come
        store.append(b"s" * 1000)
        store.sync()
        extend(store)
        rounds += 1
    assert 5 < rounds < 30
    assert os.path.getsize(path) == store.size + ZERO_STEP_MIN
    assert ZERO_ROUND_MAX < 1 << 20
    store.close()


@pytest.mark.parametrize("recovery_point", [True, False])
async def test_zeros_left_on_a_rolled_segment_cost_no_later_segment(tmp_path: Path, recovery_point: bool) -> None:
    """A crash before a rolled segment's cut to size reached the disk leaves its zeros
    behind the segments after it: recovery cuts them and keeps every later segment."""
    root = tmp_path / "d"
    s = await open_storage(root, 48 * 1024)
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    await append_durably(s, log, [make_batch(4, value_size=1000) for _ in range(30)])
    await s.checkpoint()
    expected = records(await read_all(log))
    bases = log.segment_base_offsets()
    sizes = [seg.size for seg in log.segments]
    assert len(bases) >= 3
    await s.abort()
    for base in bases[:2]:  # as if their cut had not reached the disk
        with open(log_file(root, base), "ab") as f:
            f.write(bytes(ZERO_STEP_MIN))
    if not recovery_point:
        (root / "t-0" / "recovery-point").unlink()

    s = await open_storage(root, 48 * 1024)
    log = s.log("t", 0)
    report = s.recovery[("t", 0)]
    assert report.deleted_segments == [] and report.truncated_bytes == 0
    assert log.segment_base_offsets() == bases
    assert records(await read_all(log)) == expected
    assert [log_file(root, b).stat().st_size for b in bases[:-1]] == sizes[:-1]
    await s.close()


async def test_a_roll_syncs_the_cut_of_the_segment_it_closes(tmp_path: Path) -> None:
    root = tmp_path / "d"
    s = await open_storage(root, 48 * 1024)
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    await append_durably(s, log, [make_batch(4, value_size=1000) for _ in range(8)])
    closing = log.active_segment
    files: list[int] = []
    s.flusher.round_observers.append(lambda stats: files.append(stats.files))
    while len(log.segments) == 1:
        await log.append(make_batch(4, value_size=1000), durable=True)
    # The round of the first write after the roll synced the closed segment's file, cut to
    # its data, with the new one's and their directory.
    assert files[-1] == 3 and set(files[:-1]) <= {1}
    assert log_file(root, closing.base_offset).stat().st_size == closing.size
    await s.close()
