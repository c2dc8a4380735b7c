"""The file engine's rounds by Linux native AIO (storage/aio_sync.py): a round over files
that only need an fdatasync runs with no fsync thread at all; what needs more (a new
file's directory entry) still goes to a thread within the same round; a file the kernel
cannot fdatasync by AIO falls back to the threads, whose failure fails the round as
before; `fsync.method=threads` keeps every round on the threads."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from storage import aio_sync
from storage.errors import KafkaStorageError
from storage.files import FileStore
from storage.flusher import PartitionedFlusher

pytestmark = pytest.mark.skipif(aio_sync.linux_aio is None, reason="Linux native AIO only")


def written(path: Path, data: bytes = b"x" * 100, *, lazy: bool = False) -> FileStore:
    store = FileStore(str(path), lazy=lazy)
    store.append(data)
    return store


async def test_a_round_of_existing_files_runs_without_a_thread(tmp_path: Path) -> None:
    flusher = PartitionedFlusher()
    lane = flusher.lane("p-0")
    stores = [written(tmp_path / "a.log"), written(tmp_path / "b.log")]
    for store in stores:
        lane.mark_dirty(store)
    await lane.sync()
    assert flusher.uses_aio
    assert flusher.rounds == 1 and flusher.files_synced == 2
    assert flusher._pool._threads == []  # no thread was started for it
    stores[0].append(b"y" * 10)
    lane.mark_dirty(stores[0])
    await flusher.sync()  # every lane, the storage-wide way
    assert flusher.rounds == 2
    assert flusher._pool._threads == []
    for store in stores:
        store.close()
    await flusher.close()


async def test_a_new_files_directory_entry_is_synced_on_a_thread_in_the_same_round(tmp_path: Path) -> None:
    flusher = PartitionedFlusher()
    lane = flusher.lane("p-0")
    old = written(tmp_path / "old.log")
    new = written(tmp_path / "new.log", lazy=True)  # its directory entry is not durable yet
    assert new.begin_datasync() is None
    lane.mark_dirty(old)
    lane.mark_dirty(new)
    await lane.sync()
    assert flusher.uses_aio and flusher.rounds == 1
    assert len(flusher._pool._threads) == 1
    assert new.begin_datasync() == (new._fd, 100)  # from now on an fdatasync does
    old.close()
    new.close()
    await flusher.close()


async def test_a_file_aio_cannot_sync_falls_back_to_the_threads_and_fails_the_round() -> None:
    # A character device has no fsync: io_submit refuses it (EINVAL), and so does the
    # fdatasync of the thread the round falls back to: the round fails as any failed fsync.
    flusher = PartitionedFlusher()
    failures: list[KafkaStorageError] = []
    flusher.failure_listeners.append(failures.append)
    device = FileStore("/dev/full", create=False)
    flusher.lane("p-0").mark_dirty(device)
    with pytest.raises(KafkaStorageError, match="fsync failed"):
        await flusher.lane("p-0").sync()
    assert len(failures) == 1
    assert len(flusher._pool._threads) == 1
    flusher.lane("p-0").discard(device)  # left dirty by the failed round
    device.close()
    await flusher.close()


def test_an_aio_failure_is_reported_unless_the_store_was_closed(tmp_path: Path) -> None:
    store = written(tmp_path / "a.log")
    plan = store.begin_datasync()
    assert plan is not None
    failure = OSError(errno.EIO, os.strerror(errno.EIO))
    assert store.datasync_done(plan[1], failure) is failure
    assert store.datasync_done(plan[1], None) is None
    store.close()  # closed by the loop while its fdatasync ran: nothing to report
    assert store.datasync_done(plan[1], failure) is None


async def test_the_threads_method_keeps_rounds_on_the_threads(tmp_path: Path) -> None:
    flusher = PartitionedFlusher(fsync_method="threads")
    store = written(tmp_path / "a.log")
    flusher.lane("p-0").mark_dirty(store)
    await flusher.lane("p-0").sync()
    assert not flusher.uses_aio
    assert flusher.rounds == 1 and len(flusher._pool._threads) == 1
    store.close()
    await flusher.close()
