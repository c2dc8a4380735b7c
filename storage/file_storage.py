"""FileStorage: the disk engine.

Layout under the log directory:

    topics.json                     the topic catalog (atomic replace)
    .clean_shutdown                 present only between a clean close and the next open
    <topic>-<partition>/
        partition.metadata          topic id, so a recreated topic never adopts old data
        log-start-offset            checkpoint of DeleteRecords / retention
        recovery-point              offset below which everything was fsynced
        cleaner-offset-checkpoint   offset below which the log cleaner has compacted
        00000000000000000000.log    raw batches; .index / .timeindex / (.txnindex); a new
                                    partition's first files come with its first write
        00000000000000000000.snapshot  producer state at that offset
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import shutil
import uuid
from collections.abc import Mapping

from .catalog import load_catalog, save_catalog
from .clock import Clock
from .engine import TopicInfo
from .errors import KafkaStorageError
from .files import DirectorySync, sync_directory, write_atomically
from .flusher import PartitionedFlusher
from .log import Log
from .log_loader import (
    CLEANER_CHECKPOINT_FILE,
    LOG_START_OFFSET_FILE,
    PARTITION_METADATA_FILE,
    RECOVERY_POINT_FILE,
    RecoveryReport,
    load_segments,
    read_offset_file,
)
from .log_manager import LogManager
from .producer_state import FileSnapshotStore, ProducerStateManager
from .random_source import RandomSource
from .segment import (
    CLEANED_SUFFIX,
    INDEX_SUFFIX,
    LOG_SUFFIX,
    SWAP_SUFFIX,
    TIME_INDEX_SUFFIX,
    TXN_INDEX_SUFFIX,
    LogSegment,
    segment_name,
)
from .topic_config import TopicConfig

CLEAN_SHUTDOWN_FILE = ".clean_shutdown"
LOCK_FILE = ".lock"


def partition_dir_name(topic: str, partition: int) -> str:
    return f"{topic}-{partition}"


class _FilePersistence:
    def __init__(self, storage: FileStorage, directory: str) -> None:
        self._storage = storage
        self.directory = directory
        self._dir_sync = DirectorySync(directory)

    def new_segment(self, base_offset: int, config: TopicConfig) -> LogSegment:
        return LogSegment.open_file(
            self.directory,
            base_offset,
            index_interval_bytes=config.index_interval_bytes,
            index_max_bytes=config.segment_index_bytes,
            now_ms=self._storage.clock.now_ms(),
        )

    def segment_created(self, segment: LogSegment) -> None:
        # The partition's next round also makes the new file's directory entry durable.
        self._storage.flusher.lane(self.directory).mark_dirty(self._dir_sync)

    def save_log_start_offset(self, offset: int) -> None:
        write_atomically(os.path.join(self.directory, LOG_START_OFFSET_FILE), str(offset).encode())

    async def log_start_saved(self) -> None:
        pass  # written and synced by `save_log_start_offset`

    def new_cleaned_segment(self, base_offset: int, config: TopicConfig) -> LogSegment:
        stem = os.path.join(self.directory, segment_name(base_offset))
        for ext in (LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX):
            with contextlib.suppress(FileNotFoundError):  # a leftover of an abandoned clean
                os.unlink(stem + ext + CLEANED_SUFFIX)
        return LogSegment.open_file(
            self.directory,
            base_offset,
            index_interval_bytes=config.index_interval_bytes,
            index_max_bytes=config.segment_index_bytes,
            now_ms=self._storage.clock.now_ms(),
            suffix=CLEANED_SUFFIX,
        )

    def swap_segments(self, old: list[LogSegment], new: LogSegment) -> None:
        # Kafka's order: once `.swap` files exist the new segment is complete and wins at
        # recovery (log_loader completes the swap); before that the old segments do.
        self.stage_swap(new)
        self.delete_replaced(old)
        self.finish_swap(new)

    def stage_swap(self, new: LogSegment) -> None:
        new.rename_files(CLEANED_SUFFIX, SWAP_SUFFIX)
        sync_directory(self.directory)

    def delete_replaced(self, old: list[LogSegment]) -> None:
        for segment in old:
            segment.delete()

    def finish_swap(self, new: LogSegment) -> None:
        new.rename_files(SWAP_SUFFIX, "")
        sync_directory(self.directory)

    def discard_cleaned_segment(self, segment: LogSegment) -> None:
        segment.delete()

    def save_cleaner_checkpoint(self, offset: int) -> None:
        write_atomically(os.path.join(self.directory, CLEANER_CHECKPOINT_FILE), str(offset).encode())


class FileStorage(LogManager):
    def __init__(
        self,
        log_dir: str | os.PathLike[str],
        *,
        clock: Clock | None = None,
        broker_defaults: Mapping[str, str] | None = None,
        segment_bytes_override: int | None = None,
        producer_id_expiration_ms: int,
        internal_segment_bytes: Mapping[str, int] | None = None,
        random: RandomSource | None = None,
    ) -> None:
        super().__init__(clock=clock, broker_defaults=broker_defaults, segment_bytes_override=segment_bytes_override,
                         internal_segment_bytes=internal_segment_bytes, random=random)
        # A lane of fsync rounds per partition (storage.flusher.PartitionedFlusher).
        self.flusher: PartitionedFlusher = PartitionedFlusher()
        self.producer_id_expiration_ms = producer_id_expiration_ms
        self.log_dir = os.fspath(log_dir)
        self.clean_start = False
        self.recovery: dict[tuple[str, int], RecoveryReport] = {}
        self._catalog_write: asyncio.Future[None] | None = None

    @classmethod
    async def open(
        cls,
        log_dir: str | os.PathLike[str],
        *,
        clock: Clock | None = None,
        broker_defaults: Mapping[str, str] | None = None,
        segment_bytes_override: int | None = None,
        producer_id_expiration_ms: int,
        internal_segment_bytes: Mapping[str, int] | None = None,
        random: RandomSource | None = None,
    ) -> FileStorage:
        """Load the catalog and every partition (recovering after an unclean shutdown)."""
        storage = cls(log_dir, clock=clock, broker_defaults=broker_defaults,
                      segment_bytes_override=segment_bytes_override,
                      producer_id_expiration_ms=producer_id_expiration_ms,
                      internal_segment_bytes=internal_segment_bytes, random=random)
        await asyncio.to_thread(storage._load)
        return storage

    def _load(self) -> None:
        os.makedirs(self.log_dir, exist_ok=True)
        marker = os.path.join(self.log_dir, CLEAN_SHUTDOWN_FILE)
        self.clean_start = os.path.exists(marker)
        if self.clean_start:
            # Gone from now on: a crash after this point must trigger recovery.
            os.unlink(marker)
            sync_directory(self.log_dir)
        for record in load_catalog(self.log_dir).values():
            info = self._install(record)
            for p in range(info.num_partitions):
                self._logs[(info.name, p)] = self._open_log(info, p)

    # --- hooks ------------------------------------------------------------------------

    async def _persist_catalog(self) -> None:
        # One catalog write at a time: concurrent writes would share the temporary file
        # and could leave an older catalog last. Each write takes the catalog as it is when
        # it starts, so the last one covers every change made before it; a write runs to
        # its end even when the request that started it is cancelled.
        while self._catalog_write is not None and not self._catalog_write.done():
            with contextlib.suppress(OSError):  # reported to the request that started it
                await asyncio.shield(self._catalog_write)
        write = asyncio.ensure_future(asyncio.to_thread(save_catalog, self.log_dir, dict(self._records)))
        self._catalog_write = write
        write.add_done_callback(_retrieve_outcome)
        try:
            await asyncio.shield(write)
        except OSError as exc:
            raise KafkaStorageError(f"cannot write topic catalog: {exc}") from exc

    def _open_log(self, info: TopicInfo, partition: int) -> Log:
        """A partition the catalog names, at start."""
        directory = os.path.join(self.log_dir, partition_dir_name(info.name, partition))
        meta_path = os.path.join(directory, PARTITION_METADATA_FILE)
        found = _read_topic_id(meta_path) if os.path.isdir(directory) else None
        if found is not None and found != info.topic_id:
            # Leftover of a deleted topic with the same name (crash mid-delete).
            shutil.rmtree(directory)
        elif found is None and os.path.isdir(directory):
            # Its metadata was written but not synced (`_make_directories`)
            # and did not survive: any leftover directory was replaced when this topic was
            # created, so the data here is this topic's.
            write_atomically(meta_path, _partition_metadata(info.topic_id))
        return self._load_log(info, partition, directory)

    def _open_new_log(self, info: TopicInfo, partition: int) -> Log:
        """A partition being created: a directory already there under its name belongs to
        no live partition (a deleted topic's, or one being deleted), and is replaced."""
        directory = os.path.join(self.log_dir, partition_dir_name(info.name, partition))
        if os.path.isdir(directory) and _read_topic_id(os.path.join(directory, PARTITION_METADATA_FILE)) != info.topic_id:
            shutil.rmtree(directory)
        return self._load_log(info, partition, directory)

    def _load_log(self, info: TopicInfo, partition: int, directory: str) -> Log:
        if not os.path.isdir(directory):
            os.makedirs(directory)
            write_atomically(os.path.join(directory, PARTITION_METADATA_FILE), _partition_metadata(info.topic_id))
            sync_directory(self.log_dir)
        log_start = read_offset_file(directory, LOG_START_OFFSET_FILE) or 0
        segments, report = load_segments(
            directory, info.config, clean=self.clean_start, now_ms=self.clock.now_ms(), log_start_offset=log_start
        )
        self.recovery[(info.name, partition)] = report
        cleaner_checkpoint = read_offset_file(directory, CLEANER_CHECKPOINT_FILE) or 0
        return self._log(info, partition, directory, segments, log_start, report.recovery_start, cleaner_checkpoint)

    async def _prepare_logs(self, info: TopicInfo, partitions: range) -> list[int]:
        metadata = _partition_metadata(info.topic_id)
        try:
            return await asyncio.to_thread(_make_directories, self.log_dir, info.name, partitions, metadata)
        except OSError as exc:
            raise KafkaStorageError(f"cannot create the partitions of {info.name}: {exc}") from exc

    def _create_log(self, info: TopicInfo, partition: int) -> Log:
        """A partition `_make_directories` made, at its first lookup: empty, its segment
        files to come with its first append."""
        directory = os.path.join(self.log_dir, partition_dir_name(info.name, partition))
        config = info.config
        segment = LogSegment.open_file(
            directory, 0, index_interval_bytes=config.index_interval_bytes,
            index_max_bytes=config.segment_index_bytes, now_ms=self.clock.now_ms(), lazy=True,
        )
        return self._log(info, partition, directory, [segment], 0, None, 0, new=True)

    def _log(
        self, info: TopicInfo, partition: int, directory: str, segments: list[LogSegment], log_start: int,
        max_snapshot_offset: int | None, cleaner_checkpoint: int, *, new: bool = False,
    ) -> Log:
        return Log(
            info.name,
            partition,
            info.config,
            segments,
            clock=self.clock,
            random=self.random,
            flusher=self.flusher.lane(directory),
            storage_flusher=self.flusher,
            persistence=_FilePersistence(self, directory),
            log_start_offset=log_start,
            producer_state=ProducerStateManager(
                FileSnapshotStore(directory), producer_id_expiration_ms=self.producer_id_expiration_ms
            ),
            max_snapshot_offset=max_snapshot_offset,
            segment_bytes_override=self._segment_bytes_override_for(info.name),
            appended=self.appended,
            cleaner_checkpoint=cleaner_checkpoint,
            new=new,
        )

    async def _delete_log_data(self, info: TopicInfo, partition: int, log: Log | None) -> None:
        directory = os.path.join(self.log_dir, partition_dir_name(info.name, partition))
        if log is not None:
            log.close()
        current = self._logs.get((info.name, partition))
        if current is None or current is log:
            # Not when a topic of the same name, created meanwhile, opened its log on this
            # lane (same directory): dropped, the lane would no longer be among those
            # StorageEngine.sync waits for, and its writes were answered durable unsynced.
            self.flusher.drop_lane(directory)
        if not os.path.isdir(directory):
            return
        if _read_topic_id(os.path.join(directory, PARTITION_METADATA_FILE)) != info.topic_id:
            return  # a topic of the same name was created meanwhile: the directory is its own
        # Rename first so a recreated topic never sees this data, then delete.
        doomed = f"{directory}.{uuid.uuid4().hex}-delete"
        os.rename(directory, doomed)
        await asyncio.to_thread(shutil.rmtree, doomed, True)

    # --- durability, checkpoints, shutdown --------------------------------------------

    def _checkpoint_sync(self, logs: list[tuple[Log, int]], snapshot: bool = False) -> None:
        for log, end_offset in logs:
            if log.closed:
                continue
            log.sync_all()
            if snapshot:
                # Clean shutdown: the next start loads this and replays nothing.
                log.take_producer_snapshot(durable=True)
            persistence = log.persistence
            assert isinstance(persistence, _FilePersistence)
            write_atomically(os.path.join(persistence.directory, RECOVERY_POINT_FILE), str(end_offset).encode())

    async def checkpoint(self) -> None:
        """fsync every log and record recovery points, so a crash recovers only newer data."""
        self._check_open()
        snapshot = [(log, log.log_end_offset) for log in self.logs()]
        await asyncio.to_thread(self._checkpoint_sync, snapshot)

    async def close(self) -> None:
        if self._closed:
            return
        if self._catalog_write is not None:
            with contextlib.suppress(OSError):  # reported to the request that started it
                await asyncio.shield(self._catalog_write)
        await self.flusher.close()
        for log in self.logs():
            log.active_segment.on_become_inactive()
        snapshot = [(log, log.log_end_offset) for log in self.logs()]
        await asyncio.to_thread(self._checkpoint_sync, snapshot, True)
        self._closed = True
        for log in self.logs():
            log.close()
        write_atomically(os.path.join(self.log_dir, CLEAN_SHUTDOWN_FILE), b"")

    async def abort(self) -> None:
        """Drop everything without a clean-shutdown marker (tests simulate crashes)."""
        self._closed = True
        for log in self.logs():
            log.closed = True
            for segment in log.segments:
                with contextlib.suppress(OSError):
                    segment.close()


def _partition_metadata(topic_id: uuid.UUID) -> bytes:
    return f"version: 0\ntopic_id: {topic_id}\n".encode()


def _make_directories(log_dir: str, topic: str, partitions: range, metadata: bytes) -> list[int]:
    """Makes new partitions' directories, each with its metadata file, and returns the
    partitions whose directory was already there (left by a deleted topic, or being
    deleted), which `FileStorage._open_new_log` replaces.

    Every partition's metadata says the same (the topic id), so the first file written
    is hard-linked into the other directories: a link costs no inode of its own, which
    is most of what creating a partition costs. A filesystem without hard links gets a
    file in each directory; a restored file (`write_atomically`) replaces one link only.

    Nothing is synced here, yet nothing the topic needs is left to chance. The catalog
    write that names the topic syncs the log directory after these, so their entries are
    durable before the answer; a partition directory missing at start (a filesystem that
    kept the entries but not the directories) is made again by `FileStorage._load_log`,
    and a metadata file that did not survive is written again by `FileStorage._open_log`
    (any directory of another topic was replaced before the catalog named this one). A
    directory's own content becomes durable with its first segment file: the first sync
    of a `FileStore` also syncs the directory holding it. A crash before the catalog
    names the topic leaves directories that no topic owns; a later topic of the same name
    replaces them."""
    in_the_way: list[int] = []
    stem = os.path.join(log_dir, topic + "-")  # `partition_dir_name` without a call per partition
    link_from: str | None = None
    can_link = True
    for p in partitions:
        directory = f"{stem}{p}"
        try:
            os.mkdir(directory)
        except FileExistsError:
            in_the_way.append(p)
            continue
        path = os.path.join(directory, PARTITION_METADATA_FILE)
        if link_from is not None:
            try:
                os.link(link_from, path)
                continue
            except OSError as exc:
                # EMLINK: that file has all the links the filesystem allows; another starts.
                can_link = exc.errno == errno.EMLINK
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, metadata)
        finally:
            os.close(fd)
        link_from = path if can_link else None
    return in_the_way


def _read_topic_id(path: str) -> uuid.UUID | None:
    try:
        with open(path) as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "topic_id":
                    return uuid.UUID(value.strip())
    except (FileNotFoundError, ValueError):
        return None
    return None


def _retrieve_outcome(write: asyncio.Future[None]) -> None:
    """Marks a write's failure as seen: the request awaiting it may have been cancelled."""
    if not write.cancelled():
        write.exception()
