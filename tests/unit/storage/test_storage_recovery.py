"""FileStorage crash recovery, index repair and group commit."""

from __future__ import annotations

import asyncio
import errno
import os
import shutil
from pathlib import Path

import pytest

from protocol import record_batch as rb
from storage import errors
from storage.clock import ManualClock
from storage.file_storage import CLEAN_SHUTDOWN_FILE, FileStorage
from storage.files import FileStore
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.unit.storage.storage_helpers import make_batch


def seg_path(root: Path, topic: str, base: int, suffix: str = ".log", partition: int = 0) -> Path:
    return root / f"{topic}-{partition}" / f"{base:020d}{suffix}"


async def build_log(root: Path, batches: list[bytes], *, clean: bool, segment_bytes: int | None = None,
                    configs: dict[str, str] | None = None) -> list[tuple[int, int]]:
    """Write `batches` to topic t-0; return the (base, last) offsets; crash unless clean.
    Without zeros preallocated ahead (unless `configs` asks for them): the tests cut and
    extend the log file at its data's end."""
    s = await FileStorage.open(root, clock=ManualClock(), segment_bytes_override=segment_bytes, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 1, {"preallocate": "false", **(configs or {})})
    log = s.log("t", 0)
    out = []
    for b in batches:
        r = await log.append(b)
        out.append((r.base_offset, r.last_offset))
    if clean:
        await s.close()
    else:
        await s.checkpoint()  # recovery point at the end; data stays "unclean" without the marker
        await s.abort()
        (root / "t-0" / "recovery-point").unlink()  # force recovery of everything
    return out


async def reopen_offsets(root: Path) -> tuple[FileStorage, list[int]]:
    s = await FileStorage.open(root, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    log = s.log("t", 0)
    data = b""
    offset = log.log_start_offset
    while offset < log.log_end_offset:
        chunk = (await log.read(offset, 1 << 20)).records
        if not chunk:
            break
        data += chunk
        offset = [h for _, h in rb.iter_batches(chunk)][-1].next_offset
    return s, [r.offset for b in rb.decode_batches(data) for r in b.records]


async def test_clean_shutdown_marker(tmp_path: Path) -> None:
    root = tmp_path / "d"
    await build_log(root, [make_batch(2)], clean=True)
    assert (root / CLEAN_SHUTDOWN_FILE).exists()
    s = await FileStorage.open(root, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    assert s.clean_start and not (root / CLEAN_SHUTDOWN_FILE).exists()
    assert s.recovery[("t", 0)].recovered_segments == 0
    await s.close()


@pytest.mark.property  # one recovery per byte: `make test` runs it, `make check` not
async def test_cut_at_every_byte_of_last_batch(tmp_path: Path) -> None:
    template = tmp_path / "template"
    batches = [make_batch(3), make_batch(2), make_batch(4, value_size=10)]
    await build_log(template, batches, clean=False)
    log_file = seg_path(template, "t", 0)
    full = log_file.stat().st_size
    last_start = full - len(batches[-1])
    for cut in range(last_start, full + 1):
        root = tmp_path / f"cut{cut}"
        shutil.copytree(template, root)
        os.truncate(seg_path(root, "t", 0), cut)
        s, offsets = await reopen_offsets(root)
        expected_end = 9 if cut == full else 5
        assert offsets == list(range(expected_end)), cut
        log = s.log("t", 0)
        assert log.log_end_offset == expected_end
        assert seg_path(root, "t", 0).stat().st_size == (full if cut == full else last_start)
        assert (await log.append(make_batch(1))).base_offset == expected_end
        await s.close()
        shutil.rmtree(root)


async def test_garbage_appended(tmp_path: Path) -> None:
    root = tmp_path / "d"
    await build_log(root, [make_batch(2), make_batch(3)], clean=False)
    with open(seg_path(root, "t", 0), "ab") as f:
        f.write(os.urandom(500))
    s, offsets = await reopen_offsets(root)
    assert offsets == list(range(5))
    assert s.recovery[("t", 0)].truncated_bytes == 500
    await s.close()


async def test_zero_filled_tail(tmp_path: Path) -> None:
    root = tmp_path / "d"
    await build_log(root, [make_batch(2), make_batch(3)], clean=False)
    with open(seg_path(root, "t", 0), "ab") as f:
        f.write(b"\x00" * 4096)  # what a crash after a file-size update can leave
    s, offsets = await reopen_offsets(root)
    assert offsets == list(range(5))
    await s.close()


async def test_roll_by_time_after_recovery(tmp_path: Path) -> None:
    # The recovered active segment's first batch timestamp counts for segment.ms (Kafka's
    # LogSegment.timeWaitedForRoll); the new clock stands where the old one did.
    root = tmp_path / "d"
    t0 = ManualClock().now_ms()
    await build_log(root, [make_batch(2, ts=t0), make_batch(1, ts=t0 + 500)], clean=False,
                    configs={"segment.ms": "1000"})
    s, offsets = await reopen_offsets(root)
    assert offsets == list(range(3)) and s.recovery[("t", 0)].truncated_bytes == 0
    log = s.log("t", 0)
    await log.append(make_batch(1, ts=t0 + 1001))  # 1000 ms past the first batch's max
    assert log.segment_base_offsets() == [0]
    await log.append(make_batch(1, ts=t0 + 1002))
    assert log.segment_base_offsets() == [0, 4]
    await s.close()


@pytest.mark.parametrize("clean", [True, False])
async def test_index_deleted(tmp_path: Path, clean: bool) -> None:
    root = tmp_path / "d"
    await build_log(root, [make_batch(3, value_size=200) for _ in range(20)], clean=clean,
                    configs={"index.interval.bytes": "300"})
    seg_path(root, "t", 0, ".index").unlink()
    seg_path(root, "t", 0, ".timeindex").unlink()
    s, offsets = await reopen_offsets(root)
    assert offsets == list(range(60))
    log = s.log("t", 0)
    assert len(log.segments[0].offset_index) > 5
    for offset in range(60):
        h = rb.BatchHeader.parse((await log.read(offset, 1)).records)
        assert h.base_offset <= offset <= h.last_offset
    found = await log.list_offset(0)
    assert found is not None and found.offset == 0
    await s.close()


@pytest.mark.parametrize("clean", [True, False])
@pytest.mark.parametrize("seed", range(5))
async def test_index_damaged(tmp_path: Path, clean: bool, seed: int) -> None:
    import random

    rnd = random.Random(seed)
    root = tmp_path / "d"
    await build_log(root, [make_batch(3, value_size=200) for _ in range(20)], clean=clean,
                    configs={"index.interval.bytes": "300"})
    for suffix in (".index", ".timeindex"):
        path = seg_path(root, "t", 0, suffix)
        path.write_bytes(bytes(rnd.getrandbits(8) for _ in range(rnd.choice([8, 12, 16, 24, 37, 96]))))
    s, offsets = await reopen_offsets(root)
    assert offsets == list(range(60))
    log = s.log("t", 0)
    for offset in range(60):
        h = rb.BatchHeader.parse((await log.read(offset, 1)).records)
        assert h.base_offset <= offset <= h.last_offset
    assert (await log.append(make_batch(1))).base_offset == 60
    await s.close()


async def test_index_pointing_past_end_is_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "d"
    await build_log(root, [make_batch(3, value_size=200) for _ in range(10)], clean=True,
                    configs={"index.interval.bytes": "300"})
    with open(seg_path(root, "t", 0, ".index"), "ab") as f:
        f.write((1000).to_bytes(4, "big") + (10**6).to_bytes(4, "big"))
    s, offsets = await reopen_offsets(root)
    assert offsets == list(range(30))
    await s.close()


async def test_corrupt_crc_in_middle_batch_truncates_from_there(tmp_path: Path) -> None:
    root = tmp_path / "d"
    batches = [make_batch(2) for _ in range(5)]
    await build_log(root, batches, clean=False)
    path = seg_path(root, "t", 0)
    data = bytearray(path.read_bytes())
    middle = len(batches[0]) * 2 + 70  # inside the records of the third batch
    data[middle] ^= 0xFF
    path.write_bytes(bytes(data))
    s, offsets = await reopen_offsets(root)
    assert offsets == [0, 1, 2, 3]
    assert (await s.log("t", 0).append(make_batch(1))).base_offset == 4
    await s.close()


async def test_corruption_drops_later_segments(tmp_path: Path) -> None:
    root = tmp_path / "d"
    batches = [make_batch(2, value_size=100) for _ in range(12)]
    await build_log(root, batches, clean=False, segment_bytes=700)
    bases = sorted(int(p.name[:20]) for p in (root / "t-0").glob("*.log"))
    assert len(bases) >= 3
    path = seg_path(root, "t", bases[1])
    data = bytearray(path.read_bytes())
    first = rb.BatchHeader.parse(data)
    data[first.size + 30] ^= 0x01  # second batch of the second segment
    path.write_bytes(bytes(data))
    s, offsets = await reopen_offsets(root)
    assert offsets == list(range(bases[1] + 2))
    log = s.log("t", 0)
    assert log.segment_base_offsets() == bases[:2]
    assert not seg_path(root, "t", bases[2]).exists()
    assert (await log.append(make_batch(1))).base_offset == bases[1] + 2
    await s.close()


async def test_offset_gap_is_truncated(tmp_path: Path) -> None:
    root = tmp_path / "d"
    batches = [make_batch(2) for _ in range(3)]
    await build_log(root, batches, clean=False)
    path = seg_path(root, "t", 0)
    data = bytearray(path.read_bytes())
    # BaseOffset is outside the CRC: a bad value there must still be caught.
    rb.assign_offsets(data, 9, pos=len(batches[0]))
    path.write_bytes(bytes(data))
    s, offsets = await reopen_offsets(root)
    assert offsets == [0, 1]
    await s.close()


async def test_recovery_point_skips_old_segments(tmp_path: Path) -> None:
    root = tmp_path / "d"
    s = await FileStorage.open(root, segment_bytes_override=700, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    for _ in range(12):
        await log.append(make_batch(2, value_size=100))
    await s.checkpoint()
    await log.append(make_batch(2, value_size=100))
    await s.abort()
    s = await FileStorage.open(root, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    report = s.recovery[("t", 0)]
    assert 1 <= report.recovered_segments < len(s.log("t", 0).segment_base_offsets())
    assert s.log("t", 0).log_end_offset == 26
    await s.close()


async def test_deleted_topic_data_is_gone(tmp_path: Path) -> None:
    root = tmp_path / "d"
    s = await FileStorage.open(root, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 2)
    await s.log("t", 1).append(make_batch(2))
    await s.delete_topic("t")
    assert not (root / "t-1").exists()
    assert not [p for p in root.iterdir() if p.name.startswith("t-")]
    await s.close()


async def test_group_commit_coalesces_fsyncs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0
    real_sync = FileStore.sync

    def slow_sync(self: FileStore) -> None:
        nonlocal calls
        calls += 1
        import time

        time.sleep(0.02)  # a slow disk makes requests pile up behind the running fsync
        real_sync(self)

    monkeypatch.setattr(FileStore, "sync", slow_sync)
    s = await FileStorage.open(tmp_path / "d", producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 4)
    n = 60

    async def produce(i: int) -> int:
        await asyncio.sleep((i % 7) * 0.003)
        return (await s.log("t", i % 4).append(make_batch(1), durable=True)).base_offset

    results = await asyncio.gather(*(produce(i) for i in range(n)))
    assert len(results) == n
    assert sum(s.log("t", p).log_end_offset for p in range(4)) == n
    assert s.flusher.rounds < n / 3
    assert calls < n
    await s.close()


async def test_durable_waits_for_a_round_started_after_the_write(tmp_path: Path) -> None:
    s = await FileStorage.open(tmp_path / "d", producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 1)
    log = s.log("t", 0)
    started = asyncio.Event()
    release = asyncio.Event()
    order: list[str] = []
    loop = asyncio.get_running_loop()

    class Gate:
        def sync(self) -> None:
            loop.call_soon_threadsafe(started.set)
            asyncio.run_coroutine_threadsafe(release.wait(), loop).result()
            order.append("gate-synced")

    s.flusher.mark_dirty(Gate())
    first = asyncio.create_task(s.sync())
    await started.wait()
    # Written while a round is in flight: must wait for the next round.
    second = asyncio.create_task(log.append(make_batch(1), durable=True))
    await asyncio.sleep(0.01)
    assert not second.done()
    release.set()
    await first
    await second
    assert s.flusher.rounds == 2
    await s.close()


async def test_fsync_failure_is_a_storage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from storage.errors import KafkaStorageError

    def failing(self: FileStore) -> None:
        raise OSError(5, "EIO")

    s = await FileStorage.open(tmp_path / "d", producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 1)
    monkeypatch.setattr(FileStore, "sync", failing)
    with pytest.raises(KafkaStorageError) as info:
        await s.log("t", 0).append(make_batch(1), durable=True)
    assert info.value.error_code == 56
    monkeypatch.undo()
    await s.close()


async def test_reads_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = await FileStorage.open(tmp_path / "d", producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("t", 1, {"index.interval.bytes": "1000"})
    log = s.log("t", 0)
    for _ in range(200):
        await log.append(memoryview(make_batch(2, value_size=200)), durable=True)
    largest = 0
    real_read = FileStore.read

    def spy(self: FileStore, position: int, length: int) -> bytes:
        nonlocal largest
        largest = max(largest, length)
        return real_read(self, position, length)

    monkeypatch.setattr(FileStore, "read", spy)
    out = await log.read(333, 2000)
    assert 0 < len(out.records) <= 2000
    # Index lookup + header scan: never anything close to the ~100 KB segment.
    assert largest <= 4096
    assert log.segments[0].size > 80_000
    monkeypatch.undo()
    await s.close()


async def test_a_new_topic_replaces_a_leftover_directory_and_its_partitions_are_durable(tmp_path: Path) -> None:
    """Topic creation prepares every partition's files at once, off the event loop; a
    directory left by an earlier topic of the same name (crash mid-delete) is replaced,
    never adopted, and the name is taken while the files are prepared."""
    s = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    old = await s.create_topic("x", 1)
    await s.log("x", 0).append(make_batch(4))
    await s.close()
    # The catalog forgets the topic but its directory stays, as after a crash mid-delete.
    leftover = tmp_path / "x-0"
    kept = tmp_path / "kept"
    shutil.copytree(leftover, kept)
    s = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.delete_topic("x")
    shutil.copytree(kept, leftover)
    results = await asyncio.gather(s.create_topic("x", 3), s.create_topic("x", 1), return_exceptions=True)
    assert isinstance(results[1], errors.TopicAlreadyExistsError)
    new = results[0]
    assert not isinstance(new, BaseException)
    assert new.topic_id != old.topic_id
    assert [s.log("x", p).log_end_offset for p in range(3)] == [0, 0, 0]
    for p in range(3):
        meta = (tmp_path / f"x-{p}" / "partition.metadata").read_text()
        assert f"topic_id: {new.topic_id}" in meta
        # A segment's files come with its first append.
        assert not seg_path(tmp_path, "x", 0, partition=p).exists()
    assert (await s.log("x", 2).append(make_batch(2), durable=True)).base_offset == 0
    assert seg_path(tmp_path, "x", 0, partition=2).exists()
    await s.abort()
    s = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    assert s.describe_topic("x").topic_id == new.topic_id
    assert [s.log("x", p).log_end_offset for p in range(3)] == [0, 0, 2]
    await s.close()


async def test_a_partition_gets_its_segment_files_with_its_first_append(tmp_path: Path) -> None:
    """New partitions cost a directory and a metadata file; the segment's files come with
    the first append, survive a crash once synced, and a partition never written stays
    without them across restarts, clean or not."""
    s = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await s.create_topic("lazy", 2)
    assert sorted(os.listdir(tmp_path / "lazy-0")) == ["partition.metadata"]
    assert s.log("lazy", 0).read_now(0, 1000).records == b""
    assert (await s.log("lazy", 1).append(make_batch(3), durable=True)).base_offset == 0
    assert seg_path(tmp_path, "lazy", 0, partition=1).stat().st_size > 0
    await s.abort()
    for clean in (False, True):
        s = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
        assert [s.log("lazy", p).log_end_offset for p in range(2)] == [0, 3]
        assert sorted(os.listdir(tmp_path / "lazy-0")) == ["partition.metadata"]
        if clean:
            await s.close()
        else:
            await s.abort()
    s = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    assert (await s.log("lazy", 0).append(make_batch(2), durable=True)).base_offset == 0
    await s.abort()
    s = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    assert [s.log("lazy", p).log_end_offset for p in range(2)] == [2, 3]
    await s.close()


async def test_a_lost_metadata_file_keeps_its_data_at_start_but_never_at_creation(tmp_path: Path) -> None:
    """A metadata file that did not survive (written, never synced on its own) is written
    again at start, where the catalog names the topic; a directory without one found when
    a topic is created is a leftover, replaced."""
    s = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    info = await s.create_topic("m", 1)
    await s.log("m", 0).append(make_batch(4), durable=True)
    await s.abort()
    (tmp_path / "m-0" / "partition.metadata").write_bytes(b"")
    s = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    assert s.log("m", 0).log_end_offset == 4
    assert f"topic_id: {info.topic_id}" in (tmp_path / "m-0" / "partition.metadata").read_text()
    # The topic goes from the catalog but its directory stays, metadata lost (crash mid-delete).
    kept = tmp_path / "kept"
    shutil.copytree(tmp_path / "m-0", kept)
    await s.delete_topic("m")
    shutil.copytree(kept, tmp_path / "m-0")
    (tmp_path / "m-0" / "partition.metadata").unlink()
    new = await s.create_topic("m", 1)
    assert s.log("m", 0).log_end_offset == 0
    assert f"topic_id: {new.topic_id}" in (tmp_path / "m-0" / "partition.metadata").read_text()
    await s.close()


async def test_a_big_topic_costs_the_catalog_syncs_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Creating 1,000 partitions syncs the catalog's file and the log directory and
    nothing per partition, opens no log until one is looked up, and a partition's first
    durable append syncs its own directory once; the topic and the data survive a crash,
    and deleting the topic removes every directory, looked up or not."""
    synced: list[tuple[int, int]] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        synced.append((st.st_dev, st.st_ino))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)

    def inode(path: Path) -> tuple[int, int]:
        st = os.stat(path)
        return st.st_dev, st.st_ino

    s = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    synced.clear()
    await s.create_topic("big", 1000)
    assert synced[-1] == inode(tmp_path) and len(synced) == 2  # the catalog's temporary file, then its directory
    assert sum(1 for entry in os.listdir(tmp_path) if entry.startswith("big-")) == 1000
    # One metadata file, linked into every directory.
    metadata = [tmp_path / f"big-{p}" / "partition.metadata" for p in (0, 999)]
    assert {inode(path) for path in metadata} == {inode(metadata[0])} and os.stat(metadata[0]).st_nlink == 1000
    assert s.logs() == []
    synced.clear()
    assert (await s.log("big", 999).append(make_batch(3), durable=True)).base_offset == 0
    assert synced == [inode(tmp_path / "big-999")]
    assert (await s.log("big", 999).append(make_batch(2), durable=True)).base_offset == 3
    assert synced == [inode(tmp_path / "big-999")]
    assert [log.partition for log in s.logs()] == [999]
    await s.create_topic("unused", 5)
    await s.delete_topic("unused")
    assert [entry for entry in os.listdir(tmp_path) if entry.startswith("unused-")] == []
    await s.abort()
    monkeypatch.undo()
    s = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    assert s.describe_topic("big").num_partitions == 1000
    assert [s.log("big", p).log_end_offset for p in (0, 999)] == [0, 5]
    await s.delete_topic("big")
    assert [entry for entry in os.listdir(tmp_path) if entry.startswith("big-")] == []
    await s.close()


@pytest.mark.parametrize("refusal", [errno.ENOSYS, errno.EMLINK])
async def test_partition_metadata_without_hard_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refusal: int
) -> None:
    """Where the filesystem refuses a hard link (none at all, or no more to that file), a
    partition gets a metadata file of its own, and every partition names the topic."""
    real_link = os.link
    links: list[str] = []

    def link(src: str, dst: str) -> None:
        if refusal == errno.ENOSYS or len(links) % 3 == 2:
            links.append("refused")
            raise OSError(refusal, os.strerror(refusal))
        links.append(dst)
        real_link(src, dst)

    monkeypatch.setattr(os, "link", link)
    s = await FileStorage.open(tmp_path, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    info = await s.create_topic("nl", 10)
    paths = [tmp_path / f"nl-{p}" / "partition.metadata" for p in range(10)]
    assert {path.read_text() for path in paths} == {f"version: 0\ntopic_id: {info.topic_id}\n"}
    files = {os.stat(path).st_ino for path in paths}
    if refusal == errno.ENOSYS:
        assert links == ["refused"] and len(files) == 10  # one refusal, then no more tries
    else:
        assert links.count("refused") == 3 and len(files) == 4  # a new file after each refusal
    await s.close()


async def test_file_records_are_the_bytes_a_read_returns(tmp_path: Path) -> None:
    """A Fetch's file range (storage.file_records) holds exactly the batches `read` returns,
    below the same bound, and stops at the same whole batch for max_bytes."""
    s = await FileStorage.open(tmp_path / "d", producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    try:
        await s.create_topic("t", 1)
        log = s.log("t", 0)
        for _ in range(6):  # batches of about 40 KB
            await log.append(make_batch(40, value_size=1000), durable=True)
        await log.append(make_batch(40, value_size=1000))  # written, not yet durable: past the bound
        hw = log.high_watermark
        assert hw == 240
        for max_bytes, upper in [(1 << 20, None), (100_000, None), (1 << 20, 160)]:
            plain = log.read_now(0, max_bytes, upper_bound=upper)
            in_file = log.read_now(0, max_bytes, upper_bound=upper, file_records=True)
            assert in_file.file is not None and in_file.records == b""
            assert (in_file.high_watermark, in_file.last_stable_offset) == (plain.high_watermark, plain.last_stable_offset)
            last = rb.decode_batches(plain.records)[-1]
            assert in_file.file.next_offset == last.header.next_offset == last.records[-1].offset + 1
            assert in_file.file.read() == bytes(plain.records)
        # Less than FILE_RECORDS_MIN_BYTES: read as bytes.
        small = log.read_now(0, 50_000, file_records=True)
        assert small.file is None and len(rb.decode_batches(small.records)) == 1
    finally:
        await s.close()
