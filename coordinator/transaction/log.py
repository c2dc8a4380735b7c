"""`__transaction_state`: record encoding, placement of transactional ids, and the store
the coordinator appends to.

Key: int16 record type 0 + TransactionLogKey. Value: int16 version + TransactionLogValue;
a null value is a tombstone (the id expired). The topic is compacted: on load the last
record per key wins.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from coordinator.transaction.metadata import TxnTransit
from coordinator.transaction.state import TransactionState
from protocol.codec import Reader, Writer
from protocol.errors import ErrorCode
from protocol.messages.transaction_log_key import TransactionLogKey
from protocol.messages.transaction_log_value import PartitionsSchema, TransactionLogValue
from protocol.record_batch import Record, build_batch, decode_batches

if TYPE_CHECKING:
    from storage.clock import Clock
    from storage.engine import StorageEngine

TRANSACTION_STATE_TOPIC = "__transaction_state"
KEY_VERSION = 0
# v1 (flexible) keeps PreviousProducerId, which the retry after a producer-id rotation needs.
VALUE_VERSION = 1

_I16 = struct.Struct(">h")


# --- records -----------------------------------------------------------------------------


def encode_key(transactional_id: str) -> bytes:
    w = Writer()
    w.int16(KEY_VERSION)
    TransactionLogKey(transactional_id=transactional_id).write(w, KEY_VERSION)
    return w.getvalue()


def decode_key(raw: bytes) -> str:
    r = Reader(raw)
    version = r.int16()
    if version != KEY_VERSION:
        raise ValueError(f"unknown __transaction_state key type {version}")
    return TransactionLogKey.read(r, 0).transactional_id


def encode_value(transit: TxnTransit) -> bytes:
    by_topic: dict[str, list[int]] = {}
    for topic, partition in sorted(transit.partitions):
        by_topic.setdefault(topic, []).append(partition)
    value = TransactionLogValue(
        producer_id=transit.producer_id,
        previous_producer_id=transit.prev_producer_id,
        next_producer_id=transit.next_producer_id,
        producer_epoch=transit.producer_epoch,
        transaction_timeout_ms=transit.timeout_ms,
        transaction_status=transit.state.id,
        # Kafka writes a null partition list for Empty.
        transaction_partitions=None
        if transit.state == TransactionState.EMPTY
        else [PartitionsSchema(topic=t, partition_ids=ps) for t, ps in by_topic.items()],
        transaction_last_update_timestamp_ms=transit.last_update_timestamp,
        transaction_start_timestamp_ms=transit.start_timestamp,
    )
    w = Writer()
    w.int16(VALUE_VERSION)
    value.write(w, VALUE_VERSION)
    return w.getvalue()


def decode_value(raw: bytes) -> TxnTransit:
    r = Reader(raw)
    version = r.int16()
    if version not in (0, 1):
        raise ValueError(f"unknown __transaction_state value version {version}")
    value = TransactionLogValue.read(r, version)
    partitions = frozenset(
        (p.topic, pid) for p in (value.transaction_partitions or []) for pid in p.partition_ids
    )
    return TxnTransit(
        producer_id=value.producer_id,
        prev_producer_id=value.previous_producer_id,
        next_producer_id=value.next_producer_id,
        producer_epoch=value.producer_epoch,
        last_producer_epoch=-1,
        timeout_ms=value.transaction_timeout_ms,
        state=TransactionState.from_id(value.transaction_status),
        partitions=partitions,
        start_timestamp=value.transaction_start_timestamp_ms,
        last_update_timestamp=value.transaction_last_update_timestamp_ms,
    )


# --- the store -----------------------------------------------------------------------------

LogRecord = tuple[bytes, bytes | None]


class TransactionLogError(Exception):
    """An append that did not become durable. `error_code` is the storage/append error;
    `coordinator_error` is what Kafka answers the client with for it."""

    def __init__(self, error_code: int, message: str = "") -> None:
        super().__init__(message or f"transaction log append failed with error {error_code}")
        self.error_code = error_code

    @property
    def coordinator_error(self) -> int:
        return append_error_to_coordinator_error(self.error_code)


def append_error_to_coordinator_error(error_code: int) -> int:
    """TransactionStateManager's translation of log-append errors (transactions.md §4.1)."""
    if error_code in (
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        ErrorCode.NOT_ENOUGH_REPLICAS,
        ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        ErrorCode.REQUEST_TIMED_OUT,
    ):
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if error_code in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR):
        return ErrorCode.NOT_COORDINATOR
    if error_code in (ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE):
        return ErrorCode.UNKNOWN_SERVER_ERROR
    return ErrorCode.UNKNOWN_SERVER_ERROR


class TransactionLogStore(Protocol):
    """The partitions of `__transaction_state` as the coordinator needs them."""

    @property
    def num_partitions(self) -> int: ...

    async def append(self, partition: int, records: list[LogRecord]) -> None:
        """Append records durably (fsync'd, acks=all) or raise TransactionLogError."""
        ...

    async def read_all(self, partition: int) -> list[LogRecord]:
        """Every record of the partition in log order (compaction may have dropped some)."""
        ...


class InMemoryTransactionLog:
    """A store for tests: survives coordinator "crashes" (build a new coordinator on the same
    object) and can be told to fail appends."""

    def __init__(self, num_partitions: int = 50) -> None:
        self._num_partitions = num_partitions
        self.partitions: dict[int, list[LogRecord]] = {}
        self.fail_with: int | None = None  # error code every append fails with while set
        self.fail_next: int = 0  # fail only this many following appends
        self.append_gate: asyncio.Event | None = None  # appends wait on it when set

    @property
    def num_partitions(self) -> int:
        return self._num_partitions

    async def append(self, partition: int, records: list[LogRecord]) -> None:
        if self.append_gate is not None:
            await self.append_gate.wait()
        if self.fail_with is not None:
            raise TransactionLogError(self.fail_with)
        if self.fail_next > 0:
            self.fail_next -= 1
            raise TransactionLogError(ErrorCode.NOT_ENOUGH_REPLICAS)
        self.partitions.setdefault(partition, []).extend(records)

    async def read_all(self, partition: int) -> list[LogRecord]:
        return list(self.partitions.get(partition, []))

    def records(self) -> list[tuple[str, TxnTransit | None]]:
        """Every record decoded, in partition order then log order (for tests)."""
        out: list[tuple[str, TxnTransit | None]] = []
        for p in sorted(self.partitions):
            for key, value in self.partitions[p]:
                out.append((decode_key(key), None if value is None else decode_value(value)))
        return out


class EngineTransactionLog:
    """`__transaction_state` kept as a compacted topic of the storage engine."""

    READ_CHUNK_BYTES = 1 << 20

    def __init__(self, engine: StorageEngine, num_partitions: int, clock: Clock) -> None:
        self.engine = engine
        self.clock = clock
        self._num_partitions = num_partitions
        self._ready = False

    @property
    def num_partitions(self) -> int:
        return self._num_partitions

    def exists(self) -> bool:
        """Whether the topic exists yet; adopts its partition count when it does."""
        from storage.errors import UnknownTopicOrPartitionError

        if self._ready:
            return True
        try:
            info = self.engine.describe_topic(TRANSACTION_STATE_TOPIC)
        except UnknownTopicOrPartitionError:
            return False
        self._num_partitions = info.num_partitions
        self._ready = True
        return True

    async def ensure_topic(self) -> None:
        """Created on the first write, as Kafka creates it on first use, so a broker that
        never saw a transaction lists no internal topic."""
        if not self.exists():
            await self.engine.create_topic(
                TRANSACTION_STATE_TOPIC,
                self._num_partitions,
                {"cleanup.policy": "compact", "compression.type": "uncompressed"},
            )
            self._ready = True

    async def append(self, partition: int, records: list[LogRecord]) -> None:
        # Imported late: the engine is optional and tests run the coordinator without it.
        from storage.engine import AppendOrigin
        from storage.errors import StorageError

        await self.ensure_topic()
        now = self.clock.now_ms()
        batch = build_batch([Record(key=k, value=v, timestamp=now) for k, v in records])
        try:
            await self.engine.log(TRANSACTION_STATE_TOPIC, partition).append(
                batch, durable=True, origin=AppendOrigin.COORDINATOR
            )
        except StorageError as exc:
            raise TransactionLogError(exc.error_code, str(exc)) from exc

    async def read_all(self, partition: int) -> list[LogRecord]:
        if not self.exists():
            return []
        log = self.engine.log(TRANSACTION_STATE_TOPIC, partition)
        out: list[LogRecord] = []
        offset = log.log_start_offset
        end = log.log_end_offset
        while offset < end:
            result = await log.read(offset, self.READ_CHUNK_BYTES, upper_bound=end)
            if not result.records:
                break
            for batch in decode_batches(result.records):
                if not batch.header.is_control:
                    out.extend((r.key or b"", r.value) for r in batch.records)
                offset = batch.header.next_offset
        return out


def group_records(records: Iterable[LogRecord]) -> dict[str, TxnTransit | None]:
    """Replay: the last record per transactional id wins; None marks a tombstone."""
    latest: dict[str, TxnTransit | None] = {}
    for key, value in records:
        latest[decode_key(key)] = None if value is None else decode_value(value)
    return latest
