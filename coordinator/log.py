"""The internal-topic log both coordinators keep their state in.

A coordinator appends key/value records to one partition of its compacted internal topic
(`__consumer_offsets`, `__transaction_state`) and changes no in-memory state until the
append is durable; on start it replays every partition. `StorageCoordinatorLog` adapts the
storage engine's partition logs; `MemoryCoordinatorLog` serves unit tests. What the records
mean belongs to each coordinator (`coordinator/group/records.py`,
`coordinator/transaction/records.py`); a failed append is one `CoordinatorLogError`, which
`client_error` translates into what the coordinator's clients are told.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from protocol import record_batch as rb
from protocol.errors import ErrorCode

if TYPE_CHECKING:
    from storage.clock import Clock
    from storage.engine import StorageEngine

# One record as a coordinator writes it: key and value (None: a tombstone).
Record = tuple[bytes, bytes | None]


class CoordinatorLogError(Exception):
    """An append or read that failed, named by the error Kafka's log layer returns."""

    def __init__(self, error: ErrorCode, message: str = "") -> None:
        super().__init__(message or error.name)
        self.error = error

    def client_error(self, policy: AppendErrorPolicy) -> ErrorCode:
        return client_error(self.error, policy)


# --- what a failed append means to a client -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class AppendErrorPolicy:
    """How one kind of coordinator write reports a failed append. The unavailable and
    not-leader cases are the same for every write; these are the ones that differ."""

    timed_out: ErrorCode
    too_large: ErrorCode
    # None: any other error of the leader passes through unchanged.
    other: ErrorCode | None = None


# Kafka's GroupMetadataManager.storeGroup.
GROUP_METADATA = AppendErrorPolicy(ErrorCode.REBALANCE_IN_PROGRESS, ErrorCode.UNKNOWN_SERVER_ERROR)
# Kafka's GroupMetadataManager.storeOffsets.
OFFSET_COMMIT = AppendErrorPolicy(ErrorCode.REQUEST_TIMED_OUT, ErrorCode.INVALID_COMMIT_OFFSET_SIZE)
# Kafka's CoordinatorOperationExceptionHelper, for TxnOffsetCommit.
TXN_OFFSET_COMMIT = AppendErrorPolicy(ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.UNKNOWN_SERVER_ERROR)
# The same helper, for a LeaveGroup whose member's going emptied a classic group.
LEAVE_GROUP = TXN_OFFSET_COMMIT
# Kafka's TransactionStateManager.appendTransactionToLog.
TRANSACTION_STATE = AppendErrorPolicy(
    ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.UNKNOWN_SERVER_ERROR, ErrorCode.UNKNOWN_SERVER_ERROR
)

_UNAVAILABLE = frozenset(
    {ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND}
)
_NOT_LEADER = frozenset({ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR})
_TOO_LARGE = frozenset({ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.INVALID_FETCH_SIZE})


def client_error(error: ErrorCode, policy: AppendErrorPolicy) -> ErrorCode:
    """The error a coordinator answers for an append that failed with `error`."""
    if error in _UNAVAILABLE:
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if error in _NOT_LEADER:
        return ErrorCode.NOT_COORDINATOR
    if error is ErrorCode.REQUEST_TIMED_OUT:
        return policy.timed_out
    if error in _TOO_LARGE:
        return policy.too_large
    return error if policy.other is None else policy.other


# --- records as replay sees them -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LogRecord:
    offset: int
    key: bytes | None
    value: bytes | None
    producer_id: int = -1
    transactional: bool = False
    # For control batches (transaction markers): True for COMMIT, False for ABORT.
    control_commit: bool | None = None


@dataclass(frozen=True, slots=True)
class Producer:
    """Whose transaction a transactional append belongs to (TxnOffsetCommit)."""

    producer_id: int
    producer_epoch: int


class CoordinatorLog(Protocol):
    @property
    def num_partitions(self) -> int: ...

    async def ensure_topic(self) -> None:
        """Create the topic if it is missing, as Kafka does on first use."""
        ...

    async def append(
        self, partition: int, records: list[Record], producer: Producer | None = None, *, after_earlier_writes: bool = False
    ) -> int:
        """Append records as one batch, durably (transactional when `producer` is given);
        returns the offset of the first, or raises CoordinatorLogError. With
        `after_earlier_writes` the batch is written only once everything any log was given
        before the call is durable: an fsync makes a whole file durable, so a record written
        earlier could reach the disk ahead of data still waiting for its round."""
        ...

    async def replay(self, partition: int) -> list[LogRecord]:
        """Every record of the partition, markers included, in offset order."""
        ...


# --- in memory, for unit tests -------------------------------------------------------------------


class MemoryCoordinatorLog:
    """Survives a coordinator "crash" (build a new coordinator on the same object). Appends
    wait on `append_gate` while it is set and fail with `fail_with` while that is set, or
    with NOT_ENOUGH_REPLICAS for the next `fail_next` appends."""

    def __init__(self, num_partitions: int = 50) -> None:
        self._num_partitions = num_partitions
        self.partitions: dict[int, list[LogRecord]] = {p: [] for p in range(num_partitions)}
        self.fail_with: ErrorCode | None = None
        self.fail_next = 0
        self.append_gate: asyncio.Event | None = None
        # Stands for the fsync round of writes made before an `after_earlier_writes` append.
        self.earlier_writes_gate: asyncio.Event | None = None

    @property
    def num_partitions(self) -> int:
        return self._num_partitions

    async def ensure_topic(self) -> None:
        return None

    async def append(
        self, partition: int, records: list[Record], producer: Producer | None = None, *, after_earlier_writes: bool = False
    ) -> int:
        if after_earlier_writes and self.earlier_writes_gate is not None:
            await self.earlier_writes_gate.wait()
        if self.append_gate is not None:
            await self.append_gate.wait()
        if self.fail_with is not None:
            raise CoordinatorLogError(self.fail_with)
        if self.fail_next > 0:
            self.fail_next -= 1
            raise CoordinatorLogError(ErrorCode.NOT_ENOUGH_REPLICAS)
        base = len(self.partitions[partition])
        pid = -1 if producer is None else producer.producer_id
        for key, value in records:
            self.place(partition, LogRecord(-1, key, value, pid, producer is not None))
        return base

    def place(self, partition: int, record: LogRecord) -> None:
        """Put a record (e.g. a transaction marker) where replay will see it, at the end."""
        log = self.partitions[partition]
        log.append(LogRecord(len(log), record.key, record.value, record.producer_id, record.transactional,
                             record.control_commit))

    def append_marker(self, partition: int, producer_id: int, committed: bool) -> None:
        self.place(partition, LogRecord(-1, None, None, producer_id, True, committed))

    async def replay(self, partition: int) -> list[LogRecord]:
        return list(self.partitions.get(partition, []))


# --- over the storage engine ---------------------------------------------------------------------


def _decode(buf: bytes | bytearray | memoryview) -> Iterator[LogRecord]:
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


def _log_error(exc: Exception) -> CoordinatorLogError:
    """The leader's own verdict (e.g. INVALID_PRODUCER_EPOCH for a stale epoch), or a
    storage error for I/O failures and codes this broker does not know."""
    code = getattr(exc, "error_code", ErrorCode.KAFKA_STORAGE_ERROR)
    try:
        error = ErrorCode(code)
    except ValueError:
        error = ErrorCode.KAFKA_STORAGE_ERROR
    return CoordinatorLogError(error, str(exc))


class StorageCoordinatorLog:
    """The partitions of an internal compacted topic of the storage engine."""

    READ_CHUNK_BYTES = 1 << 20

    def __init__(
        self,
        storage: StorageEngine,
        topic: str,
        num_partitions: int,
        clock: Clock,
        topic_configs: Mapping[str, str] | None = None,
    ) -> None:
        self.storage = storage
        self.topic = topic
        self.clock = clock
        self.topic_configs = dict(topic_configs or {})
        self._num_partitions = num_partitions
        self._exists = False

    @property
    def num_partitions(self) -> int:
        return self._num_partitions

    def exists(self) -> bool:
        """Whether the topic exists yet; an existing topic keeps its partition count."""
        from storage.errors import UnknownTopicOrPartitionError

        if self._exists:
            return True
        try:
            info = self.storage.describe_topic(self.topic)
        except UnknownTopicOrPartitionError:
            return False
        self._num_partitions = info.num_partitions
        self._exists = True
        return True

    async def ensure_topic(self) -> None:
        """Created on first use, as Kafka does, so a broker that never needed the topic
        lists none."""
        from storage.errors import StorageError, TopicAlreadyExistsError

        if self.exists():
            return
        try:
            await self.storage.create_topic(self.topic, self._num_partitions, self.topic_configs or None)
        except TopicAlreadyExistsError:
            pass
        except StorageError as exc:
            raise _log_error(exc) from exc
        self.exists()

    async def append(
        self, partition: int, records: list[Record], producer: Producer | None = None, *, after_earlier_writes: bool = False
    ) -> int:
        from storage.engine import AppendOrigin
        from storage.errors import StorageError

        if not self._exists:
            await self.ensure_topic()
        if after_earlier_writes:
            try:
                await self.storage.sync()
            except StorageError as exc:
                raise _log_error(exc) from exc
        now = self.clock.now_ms()
        built = [rb.Record(key, value, timestamp=now) for key, value in records]
        if producer is None:
            batch = rb.build_batch(built)
        else:
            batch = rb.build_batch(
                built,
                producer_id=producer.producer_id,
                producer_epoch=producer.producer_epoch,
                # Kafka writes NO_SEQUENCE here; the log's batch validation requires a
                # sequence of every non-control batch with a producer id, whatever its
                # origin, and the leader does not check sequences of coordinator appends.
                base_sequence=0,
                transactional=True,
            )
        try:
            # Built just above: the log trusts its CRC and records (a client's batch is checked).
            result = await self.storage.log(self.topic, partition).append(
                batch, durable=True, origin=AppendOrigin.COORDINATOR, trusted=True
            )
        except (StorageError, OSError) as exc:
            raise _log_error(exc) from exc
        return int(result.base_offset)

    async def replay(self, partition: int) -> list[LogRecord]:
        from storage.errors import StorageError

        if not self.exists():
            return []
        log = self.storage.log(self.topic, partition)
        out: list[LogRecord] = []
        offset = log.log_start_offset
        end = log.log_end_offset
        try:
            while offset < end:
                result = await log.read(offset, self.READ_CHUNK_BYTES, upper_bound=end)
                if not result.records:
                    break
                out.extend(r for r in _decode(result.records) if r.offset >= offset)
                next_offset = max((h.next_offset for _, h in rb.iter_batches(result.records)), default=offset)
                if next_offset <= offset:
                    break
                offset = next_offset
        except (StorageError, OSError) as exc:
            raise _log_error(exc) from exc
        return out
