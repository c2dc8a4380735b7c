"""The narrow log interface the coordinators write their state to.

A coordinator appends key/value records to one partition of its internal topic and must
not change its in-memory state until the append is durable. On start it replays every
partition. `MemoryCoordinatorLog` serves unit tests; `StorageCoordinatorLog` adapts the
storage engine's partition logs (`__consumer_offsets`, later `__transaction_state`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from protocol import record_batch as rb
from protocol.errors import ErrorCode


class CoordinatorLogError(Exception):
    """An append or read that failed, named by the error Kafka's log layer would return;
    coordinators translate it to what their clients expect."""

    def __init__(self, error: ErrorCode, message: str = "") -> None:
        super().__init__(message or error.name)
        self.error = error


@dataclass(frozen=True, slots=True)
class LogRecord:
    offset: int
    key: bytes | None
    value: bytes | None
    producer_id: int = -1
    transactional: bool = False
    # For control batches (transaction markers): True for COMMIT, False for ABORT.
    control_commit: bool | None = None


class CoordinatorLog(Protocol):
    @property
    def num_partitions(self) -> int: ...

    async def append(self, partition: int, records: list[tuple[bytes, bytes | None]], timestamp: int) -> int:
        """Append records as one batch, durably; returns the offset of the first."""
        ...

    async def replay(self, partition: int) -> list[LogRecord]:
        """Every record of the partition, in offset order."""
        ...


class MemoryCoordinatorLog:
    """In-memory log; `fail_next` makes appends raise, to test that state stays unchanged."""

    def __init__(self, num_partitions: int = 50) -> None:
        self._num_partitions = num_partitions
        self.records: dict[int, list[LogRecord]] = {p: [] for p in range(num_partitions)}
        self.fail_with: ErrorCode | None = None
        self.append_gate: asyncio.Event | None = None  # appends wait on it when set

    @property
    def num_partitions(self) -> int:
        return self._num_partitions

    async def append(self, partition: int, records: list[tuple[bytes, bytes | None]], timestamp: int) -> int:
        if self.append_gate is not None:
            await self.append_gate.wait()
        if self.fail_with is not None:
            raise CoordinatorLogError(self.fail_with)
        log = self.records[partition]
        base = len(log)
        for i, (key, value) in enumerate(records):
            log.append(LogRecord(base + i, key, value))
        return base

    def append_raw(self, partition: int, record: LogRecord) -> None:
        """Test hook: place a record (e.g. a transactional one) as replay will see it."""
        log = self.records[partition]
        log.append(LogRecord(len(log), record.key, record.value, record.producer_id, record.transactional,
                             record.control_commit))

    async def replay(self, partition: int) -> list[LogRecord]:
        return list(self.records[partition])


def _storage_error(exc: Exception) -> CoordinatorLogError:
    from storage import errors as se

    if isinstance(exc, se.UnknownTopicOrPartitionError):
        return CoordinatorLogError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, str(exc))
    if isinstance(exc, se.MessageTooLargeError):
        return CoordinatorLogError(ErrorCode.MESSAGE_TOO_LARGE, str(exc))
    if isinstance(exc, se.RecordListTooLargeError):
        return CoordinatorLogError(ErrorCode.RECORD_LIST_TOO_LARGE, str(exc))
    return CoordinatorLogError(ErrorCode.KAFKA_STORAGE_ERROR, str(exc))


def _decode(buf: bytes) -> Iterator[LogRecord]:
    for batch in rb.decode_batches(buf):
        header = batch.header
        for record in batch.records:
            if header.is_control:
                ctrl = rb.parse_control_record(record)
                yield LogRecord(record.offset, None, None, header.producer_id, True,
                                ctrl.control_type == rb.ControlType.COMMIT)
            else:
                yield LogRecord(record.offset, record.key, record.value, header.producer_id,
                                header.is_transactional)


class StorageCoordinatorLog:
    """The partitions of an internal compacted topic of the storage engine."""

    READ_CHUNK = 1 << 20

    def __init__(self, storage: Any, topic: str, num_partitions: int) -> None:
        self.storage = storage
        self.topic = topic
        self._num_partitions = num_partitions

    @property
    def num_partitions(self) -> int:
        return self._num_partitions

    def exists(self) -> bool:
        """Whether the topic exists; an existing topic keeps its partition count."""
        from storage import errors as se

        try:
            info = self.storage.describe_topic(self.topic)
        except se.UnknownTopicOrPartitionError:
            return False
        self._num_partitions = info.num_partitions
        return True

    async def ensure_topic(self) -> None:
        """Create the topic on first use, as Kafka does on the first FindCoordinator."""
        from storage import errors as se

        if self.exists():
            return
        try:
            await self.storage.create_topic(self.topic, self._num_partitions)
        except se.TopicAlreadyExistsError:
            pass
        except se.StorageError as exc:
            raise _storage_error(exc) from exc
        self.exists()

    async def append(self, partition: int, records: list[tuple[bytes, bytes | None]], timestamp: int) -> int:
        from storage import AppendOrigin, StorageError

        await self.ensure_topic()
        batch = rb.build_batch([rb.Record(key, value, timestamp=timestamp) for key, value in records])
        try:
            result = await self.storage.log(self.topic, partition).append(
                batch, durable=True, origin=AppendOrigin.COORDINATOR
            )
        except (StorageError, OSError) as exc:
            raise _storage_error(exc) from exc
        return int(result.base_offset)

    async def replay(self, partition: int) -> list[LogRecord]:
        from storage import StorageError

        if not self.exists():
            return []
        log = self.storage.log(self.topic, partition)
        out: list[LogRecord] = []
        offset = log.log_start_offset
        try:
            while offset < log.log_end_offset:
                result = await log.read(offset, self.READ_CHUNK, upper_bound=log.log_end_offset)
                if not result.records:
                    break
                for record in _decode(result.records):
                    if record.offset >= offset:
                        out.append(record)
                ends = [h.next_offset for _, h in rb.iter_batches(result.records)]
                if not ends or max(ends) <= offset:
                    break
                offset = max(ends)
        except (StorageError, OSError) as exc:
            raise _storage_error(exc) from exc
        return out
