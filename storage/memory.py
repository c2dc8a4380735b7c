"""MemoryStorage: the same log logic over bytearrays, for fast unit tests.

A `MemoryState` plays the part of the disk: pass the same state to a new
MemoryStorage to "reopen" it (catalog, segments and log start offsets survive).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

from .catalog import TopicRecord
from .clock import Clock
from .engine import TopicInfo
from .log import Log
from .log_manager import LogManager
from .producer_state import MemorySnapshotStore, ProducerStateManager
from .random_source import RandomSource
from .segment import LogSegment
from .topic_config import TopicConfig


@dataclass
class MemoryState:
    catalog: dict[str, TopicRecord] = field(default_factory=dict)
    segments: dict[tuple[uuid.UUID, int], list[LogSegment]] = field(default_factory=dict)
    log_start: dict[tuple[uuid.UUID, int], int] = field(default_factory=dict)
    snapshots: dict[tuple[uuid.UUID, int], dict[int, bytes]] = field(default_factory=dict)
    cleaner_checkpoints: dict[tuple[uuid.UUID, int], int] = field(default_factory=dict)


class _MemoryPersistence:
    def __init__(self, storage: MemoryStorage, key: tuple[uuid.UUID, int]) -> None:
        self._storage = storage
        self._key = key

    def new_segment(self, base_offset: int, config: TopicConfig) -> LogSegment:
        return LogSegment.in_memory(
            base_offset,
            index_interval_bytes=config.index_interval_bytes,
            index_max_bytes=config.segment_index_bytes,
            now_ms=self._storage.clock.now_ms(),
        )

    def segment_created(self, segment: LogSegment) -> None:
        pass

    def save_log_start_offset(self, offset: int) -> None:
        self._storage.state.log_start[self._key] = offset

    async def log_start_saved(self) -> None:
        pass

    def new_cleaned_segment(self, base_offset: int, config: TopicConfig) -> LogSegment:
        return self.new_segment(base_offset, config)

    def swap_segments(self, old: list[LogSegment], new: LogSegment) -> None:
        pass  # the log's segment list is the state: swapping it is the whole swap

    def discard_cleaned_segment(self, segment: LogSegment) -> None:
        pass

    def save_cleaner_checkpoint(self, offset: int) -> None:
        self._storage.state.cleaner_checkpoints[self._key] = offset


class MemoryStorage(LogManager):
    def __init__(
        self,
        state: MemoryState | None = None,
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
        self.producer_id_expiration_ms = producer_id_expiration_ms
        self.state = state or MemoryState()
        for record in list(self.state.catalog.values()):
            info = self._install(record)
            for p in range(info.num_partitions):
                self._logs[(info.name, p)] = self._open_log(info, p)

    async def _persist_catalog(self) -> None:
        self.state.catalog = {
            name: TopicRecord(r.name, r.topic_id, r.num_partitions, dict(r.configs)) for name, r in self._records.items()
        }

    def _open_log(self, info: TopicInfo, partition: int) -> Log:
        key = (info.topic_id, partition)
        persistence = _MemoryPersistence(self, key)
        segments = self.state.segments.get(key)
        if segments is None:
            segments = self.state.segments[key] = [persistence.new_segment(0, info.config)]
        return Log(
            info.name,
            partition,
            info.config,
            segments,
            clock=self.clock,
            random=self.random,
            flusher=self.flusher,
            persistence=persistence,
            log_start_offset=self.state.log_start.get(key, 0),
            producer_state=ProducerStateManager(
                MemorySnapshotStore(self.state.snapshots.setdefault(key, {})),
                producer_id_expiration_ms=self.producer_id_expiration_ms,
            ),
            segment_bytes_override=self._segment_bytes_override_for(info.name),
            appended=self.appended,
            cleaner_checkpoint=self.state.cleaner_checkpoints.get(key, 0),
            writes_need_sync=False,  # nothing to fsync: durable when written
        )

    async def _delete_log_data(self, info: TopicInfo, partition: int, log: Log | None) -> None:
        key = (info.topic_id, partition)
        if log is not None:
            log.delete()
        self.state.segments.pop(key, None)
        self.state.log_start.pop(key, None)
        self.state.snapshots.pop(key, None)
        self.state.cleaner_checkpoints.pop(key, None)

    async def checkpoint(self) -> None:
        self._check_open()

    async def close(self) -> None:
        await self.flusher.close()
        self._closed = True
        for log in self.logs():
            log.take_producer_snapshot(durable=True)
            log.closed = True
