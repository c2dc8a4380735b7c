"""Engine-independent half of a storage engine: topic admin, log lookup, retention.

Subclasses decide where the catalog and the partition data live.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Collection, Mapping

from .append_signal import AppendSignal
from .catalog import INTERNAL_TOPICS, TopicRecord, validate_topic_name
from .clock import Clock, SystemClock
from .engine import TopicInfo
from .errors import (
    InvalidPartitionsError,
    KafkaStorageError,
    TopicAlreadyExistsError,
    UnknownTopicIdError,
    UnknownTopicOrPartitionError,
)
from .flusher import GroupCommitFlusher
from .log import Log
from .random_source import SYSTEM_RANDOM, RandomSource
from .topic_config import INTERNAL_TOPIC_DEFAULTS, ConfigEntry, TopicConfig, validate_configs

logger = logging.getLogger(__name__)

MAX_PARTITIONS = 100_000
_MIN_SEGMENT_BYTES = 1024 * 1024  # the smallest segment.bytes a topic config accepts


class LogManager:
    def __init__(
        self,
        *,
        clock: Clock | None = None,
        broker_defaults: Mapping[str, str] | None = None,
        segment_bytes_override: int | None = None,
        internal_segment_bytes: Mapping[str, int] | None = None,
        random: RandomSource | None = None,
    ) -> None:
        self.clock: Clock = clock or SystemClock()
        # Where the logs draw their segments' roll jitters (segment.jitter.ms).
        self.random: RandomSource = random or SYSTEM_RANDOM
        # Segment size of each internal topic (offsets.topic.segment.bytes,
        # transaction.state.log.segment.bytes): a segment.bytes override of the topic when
        # created; below the topic config's minimum (tests) it applies to the logs only.
        self.internal_segment_bytes: dict[str, int] = dict(internal_segment_bytes or {})
        # Broker-level defaults use the topic config names (e.g. "retention.ms").
        clean_defaults = validate_configs(broker_defaults or {})
        self.broker_defaults: dict[str, str] = {k: v for k, v in clean_defaults.items() if v is not None}
        self.segment_bytes_override = segment_bytes_override
        self.flusher = GroupCommitFlusher()
        # False after a start that had to recover: the previous run did not shut down
        # cleanly, so writes that were never made durable may be gone (FileStorage).
        self.clean_start = True
        # Shared by every log of the engine: each reports its own changes to it.
        self.appended = AppendSignal()
        self._records: dict[str, TopicRecord] = {}
        self._topics: dict[str, TopicInfo] = {}
        self._by_id: dict[uuid.UUID, str] = {}
        self._logs: dict[tuple[str, int], Log] = {}
        self._closed = False
        # Topics whose files are being prepared: not visible yet, but their names are taken.
        self._creating: set[str] = set()
        # Partitions created empty and not looked up since, by topic: their Log objects are
        # made by the first lookup, so a topic of thousands of partitions costs none at
        # creation. Every engine-wide pass over `logs()` may skip them: they hold nothing.
        self._unopened: dict[str, set[int]] = {}
        # Held while a topic gains partitions (CreatePartitions).
        self._growing = asyncio.Lock()

    # --- hooks for the engines --------------------------------------------------------

    async def _persist_catalog(self) -> None:
        raise NotImplementedError

    def _open_log(self, info: TopicInfo, partition: int) -> Log:
        raise NotImplementedError

    async def _prepare_logs(self, info: TopicInfo, partitions: range) -> Collection[int]:
        """Make new partitions' files before the topic is visible; returns the partitions
        it left alone (something of another topic in the way), for `_open_new_log`. The
        others are opened by `_create_log` at their first lookup."""
        return ()

    def _create_log(self, info: TopicInfo, partition: int) -> Log:
        """Open a partition `_prepare_logs` prepared, empty, at its first lookup."""
        return self._open_new_log(info, partition)

    def _open_new_log(self, info: TopicInfo, partition: int) -> Log:
        """Open a partition being created that `_prepare_logs` did not prepare."""
        return self._open_log(info, partition)

    async def _delete_log_data(self, info: TopicInfo, partition: int, log: Log | None) -> None:
        raise NotImplementedError

    async def checkpoint(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    def _segment_bytes_override_for(self, topic: str) -> int | None:
        if self.segment_bytes_override is not None:
            return self.segment_bytes_override
        size = self.internal_segment_bytes.get(topic)
        if size is not None and size < _MIN_SEGMENT_BYTES and topic in INTERNAL_TOPICS:
            return size
        return None

    # --- catalog helpers --------------------------------------------------------------

    def _info(self, record: TopicRecord) -> TopicInfo:
        return TopicInfo(
            name=record.name,
            topic_id=record.topic_id,
            num_partitions=record.num_partitions,
            config=TopicConfig(record.configs, self.broker_defaults),
            internal=record.name in INTERNAL_TOPICS,
        )

    def _install(self, record: TopicRecord) -> TopicInfo:
        info = self._info(record)
        self._records[record.name] = record
        self._topics[record.name] = info
        self._by_id[record.topic_id] = record.name
        return info

    def _check_open(self) -> None:
        if self._closed:
            raise KafkaStorageError("storage is closed")

    def _resolve(self, name_or_id: str | uuid.UUID) -> TopicInfo:
        name = self._by_id.get(name_or_id) if isinstance(name_or_id, uuid.UUID) else name_or_id
        info = self._topics.get(name) if name is not None else None
        if info is None:
            raise UnknownTopicOrPartitionError(f"unknown topic {name_or_id}")
        return info

    # --- topic admin ------------------------------------------------------------------

    async def create_topic(
        self,
        name: str,
        num_partitions: int,
        configs: Mapping[str, str | None] | None = None,
        *,
        topic_id: uuid.UUID | None = None,
        validate_only: bool = False,
    ) -> TopicInfo:
        self._check_open()
        validate_topic_name(name)
        if name in self._topics or name in self._creating:
            raise TopicAlreadyExistsError(f"Topic '{name}' already exists.")
        if not 1 <= num_partitions <= MAX_PARTITIONS:
            raise InvalidPartitionsError(f"Number of partitions must be between 1 and {MAX_PARTITIONS}")
        merged: dict[str, str | None] = dict(INTERNAL_TOPIC_DEFAULTS) if name in INTERNAL_TOPICS else {}
        internal_size = self.internal_segment_bytes.get(name) if name in INTERNAL_TOPICS else None
        if internal_size is not None and internal_size >= _MIN_SEGMENT_BYTES:
            merged["segment.bytes"] = str(internal_size)
        merged.update(configs or {})
        clean = {k: v for k, v in validate_configs(merged).items() if v is not None}
        record = TopicRecord(name, topic_id or uuid.uuid4(), num_partitions, clean)
        if validate_only:
            return self._info(record)
        # The name is taken at once; the creation runs to its end even when the request
        # that started it is cancelled (a client gone mid-request), as Kafka's controller
        # does, so that neither the files made nor the open segments are left behind.
        self._creating.add(name)
        creation = asyncio.ensure_future(self._create(record))
        creation.add_done_callback(_retrieve_outcome)
        return await asyncio.shield(creation)

    async def _create(self, record: TopicRecord) -> TopicInfo:
        # The files come first, while the topic is invisible (its name taken): the
        # catalog write that makes it visible then makes them durable all at once.
        partitions = range(record.num_partitions)
        try:
            in_the_way = await self._prepare_logs(self._info(record), partitions)
        finally:
            self._creating.discard(record.name)
        self._check_open()
        if record.name in self._topics:
            # A cluster's catalog reload (storage/postgres/engine.py `reload_catalog`) took
            # another broker's topic of this name meanwhile: that one stands. Installed over
            # it, ours would have the next catalog write delete it from PostgreSQL.
            raise TopicAlreadyExistsError(f"Topic '{record.name}' already exists.")
        info = self._install(record)
        # Every partition is found from here on, before the first suspension: a request
        # that sees the topic while the catalog is being written must find them all.
        for p in in_the_way:
            self._logs[(info.name, p)] = self._open_new_log(info, p)
        unopened = set(partitions)
        unopened.difference_update(in_the_way)
        if unopened:
            self._unopened[info.name] = unopened
        await self._persist_catalog()
        current = self._records.get(info.name)
        if current is not None and current.topic_id != info.topic_id:
            # The catalog write found the name taken by another broker's topic, which it
            # installed in ours' place (storage/postgres/engine.py `_persist_catalog`).
            raise TopicAlreadyExistsError(f"Topic '{info.name}' already exists.")
        return info

    async def delete_topic(self, name_or_id: str | uuid.UUID) -> TopicInfo:
        self._check_open()
        info = self._resolve(name_or_id)
        del self._records[info.name]
        del self._topics[info.name]
        del self._by_id[info.topic_id]
        # The partitions go with the topic, before the first suspension: a topic of the same
        # name created meanwhile must find its own logs, never lose them to this deletion.
        logs = [self._logs.pop((info.name, p), None) for p in range(info.num_partitions)]
        # Closing a log tells its waiters it is gone; one never opened tells them here.
        for p in self._unopened.pop(info.name, ()):
            self.appended.notify(info.name, p)
        # Catalog first: after a crash the data is orphaned, never resurrected.
        await self._persist_catalog()
        for p, log in enumerate(logs):
            await self._delete_log_data(info, p, log)
        return info

    async def create_partitions(self, name: str, total_count: int, *, validate_only: bool = False) -> TopicInfo:
        self._check_open()
        info = self._resolve(name)
        if total_count <= info.num_partitions:
            raise _not_more_partitions(info.num_partitions, total_count)
        if total_count > MAX_PARTITIONS:
            raise InvalidPartitionsError(f"Number of partitions must be at most {MAX_PARTITIONS}")
        if validate_only:
            record = self._records[name]
            return self._info(TopicRecord(record.name, record.topic_id, total_count, dict(record.configs)))
        # As a topic's creation: runs to its end even when the request is cancelled.
        growth = asyncio.ensure_future(self._add_partitions(info.name, info.topic_id, total_count))
        growth.add_done_callback(_retrieve_outcome)
        return await asyncio.shield(growth)

    async def _add_partitions(self, name: str, topic_id: uuid.UUID, total_count: int) -> TopicInfo:
        """The new partitions' files first, made as a new topic's are (no sync per
        partition), then the catalog names them. One growth at a time, each from the
        count it finds."""
        async with self._growing:
            current = self._current_record(name, topic_id)
            if current.num_partitions >= total_count:  # another growth got there first
                raise _not_more_partitions(current.num_partitions, total_count)
            new = range(current.num_partitions, total_count)
            in_the_way = await self._prepare_logs(self._info(current), new)
            # Deleted meanwhile (or deleted and created again): the files made are orphans
            # that a later topic of the name replaces, as after a crash.
            current = self._current_record(name, topic_id)
            # A config change made meanwhile is kept.
            info = self._install(TopicRecord(current.name, current.topic_id, total_count, dict(current.configs)))
            for p in in_the_way:
                self._logs[(info.name, p)] = self._open_new_log(info, p)
            unopened = set(new)
            unopened.difference_update(in_the_way)
            if unopened:
                self._unopened.setdefault(info.name, set()).update(unopened)
            await self._persist_catalog()
            return info

    def _current_record(self, name: str, topic_id: uuid.UUID) -> TopicRecord:
        record = self._records.get(name)
        if record is None or record.topic_id != topic_id:
            raise UnknownTopicOrPartitionError(f"unknown topic {name}")
        return record

    async def alter_topic_configs(
        self,
        name: str,
        changes: Mapping[str, str | None],
        *,
        replace: bool = False,
        validate_only: bool = False,
    ) -> TopicInfo:
        """Incremental by default (None deletes an override); `replace` = legacy AlterConfigs."""
        self._check_open()
        info = self._resolve(name)
        config = info.config.with_changes(changes, replace=replace)
        record = self._records[name]
        new_record = TopicRecord(record.name, record.topic_id, record.num_partitions, dict(config.overrides))
        if validate_only:
            return self._info(new_record)
        info = self._install(new_record)
        # Before the first suspension, as the catalog entry: after it the name may belong
        # to another topic (deleted and created again meanwhile).
        for p in range(info.num_partitions):
            log = self._logs.get((name, p))
            if log is not None:
                log.config = info.config
        await self._persist_catalog()
        return info

    def set_broker_defaults(self, defaults: Mapping[str, str]) -> None:
        """New broker-level defaults (a dynamic broker config changed): every topic without
        its own override takes them at once, as Kafka's `DynamicLogConfig` does."""
        clean = validate_configs(defaults)
        self.broker_defaults = {k: v for k, v in clean.items() if v is not None}
        for record in list(self._records.values()):
            info = self._install(record)
            for p in range(info.num_partitions):
                log = self._logs.get((info.name, p))
                if log is not None:
                    log.config = info.config

    def list_topics(self) -> list[TopicInfo]:
        return sorted(self._topics.values(), key=lambda t: t.name)

    def describe_topic(self, name_or_id: str | uuid.UUID) -> TopicInfo:
        return self._resolve(name_or_id)

    def describe_configs(self, name: str, names: list[str] | None = None) -> list[ConfigEntry]:
        return self._resolve(name).config.describe(names)

    def log(self, topic: str, partition: int) -> Log:
        log = self._logs.get((topic, partition))
        if log is None:
            log = self._open_unopened(topic, partition)
            if log is None:
                raise UnknownTopicOrPartitionError(f"unknown partition {topic}-{partition}")
        return log

    def _open_unopened(self, topic: str, partition: int) -> Log | None:
        unopened = self._unopened.get(topic)
        if unopened is None or partition not in unopened:
            return None
        unopened.discard(partition)
        if not unopened:
            del self._unopened[topic]
        # With the topic's config as it is now: changes made meanwhile went to the catalog.
        log = self._logs[(topic, partition)] = self._create_log(self._topics[topic], partition)
        return log

    def log_by_id(self, topic_id: uuid.UUID, partition: int) -> Log:
        """For requests that name topics by id (Fetch v13+)."""
        name = self._by_id.get(topic_id)
        if name is None:
            raise UnknownTopicIdError(f"unknown topic id {topic_id}")
        return self.log(name, partition)

    def logs(self) -> list[Log]:
        """The open logs; a partition never looked up since its creation is not among them."""
        return list(self._logs.values())

    # --- durability and retention -----------------------------------------------------

    async def sync(self) -> None:
        await self.flusher.sync()

    async def enforce_retention(self) -> int:
        self._check_open()
        return sum(log.enforce_retention() for log in list(self._logs.values()))

    async def compact(self) -> int:
        """Run the log cleaner over every partition of a compacted topic that is due;
        returns the number of partitions cleaned."""
        from .cleaner import clean_log

        self._check_open()
        cleaned = 0
        for log in list(self._logs.values()):
            if self._closed:
                break
            if log.closed or not log.config.compact:
                continue
            try:
                if await clean_log(log, self.clock.now_ms()) is not None:
                    cleaned += 1
            except Exception:
                logger.exception("log cleaner failed on %s-%d", log.topic, log.partition)
        return cleaned


def _not_more_partitions(current: int, requested: int) -> InvalidPartitionsError:
    return InvalidPartitionsError(
        f"Topic currently has {current} partitions, which is higher than or equal to the requested {requested}."
    )


def _retrieve_outcome(task: asyncio.Future[TopicInfo]) -> None:
    """Marks a creation's failure as seen: the request awaiting it may have been cancelled."""
    if not task.cancelled():
        task.exception()
