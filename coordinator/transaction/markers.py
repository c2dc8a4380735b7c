"""Writing transaction markers: the interface the partition side implements, and the rules
for each per-partition answer (Kafka's TransactionMarkerRequestCompletionHandler)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Protocol

from protocol.errors import ErrorCode
from protocol.record_batch import ControlType, build_control_batch
from storage.topic_partition import TopicPartition
from storage.txn_markers import MarkerListener, write_txn_markers

if TYPE_CHECKING:
    from storage.clock import Clock
    from storage.engine import StorageEngine


class MarkerWriter(Protocol):
    """Appends a COMMIT/ABORT control batch to partitions, as WriteTxnMarkers does.

    The partition side implements it with the same code path that serves the
    WriteTxnMarkers API: for each partition, run the leader's marker checks (epoch,
    coordinator epoch), append the control batch with origin COORDINATOR and acks=all,
    close the producer's open transaction there (LSO, aborted-transaction index), and hand
    `__consumer_offsets` partitions to the group coordinator. It answers one error code per
    partition (NONE on success); UNKNOWN_TOPIC_OR_PARTITION means the partition does not
    exist (deleted) and is dropped from the transaction. It should not raise; an exception
    is treated as a retriable failure of every partition."""

    async def write_markers(
        self,
        producer_id: int,
        producer_epoch: int,
        coordinator_epoch: int,
        committed: bool,
        partitions: list[TopicPartition],
        transaction_version: int = 0,
    ) -> dict[TopicPartition, int]: ...


class MarkerOutcome(Enum):
    DONE = "done"  # written, or nothing to write there
    RETRY = "retry"  # try this partition again after a backoff
    OBSOLETE = "obsolete"  # stop: a newer producer or coordinator owns the transaction


_RETRIABLE = frozenset(
    {
        ErrorCode.NOT_LEADER_OR_FOLLOWER,
        ErrorCode.NOT_ENOUGH_REPLICAS,
        ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        ErrorCode.REQUEST_TIMED_OUT,
        ErrorCode.KAFKA_STORAGE_ERROR,
        ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        ErrorCode.NOT_COORDINATOR,
        ErrorCode.NETWORK_EXCEPTION,
        # The leader refuses this broker's principal (no CLUSTER_ACTION): retried, so the
        # transaction completes once an ACL allows it, as after a leader change.
        ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
    }
)
_OBSOLETE = frozenset(
    {
        ErrorCode.INVALID_PRODUCER_EPOCH,
        ErrorCode.TRANSACTION_COORDINATOR_FENCED,
        # Kafka treats these as a fatal bug; writing again would not help either.
        ErrorCode.CORRUPT_MESSAGE,
        ErrorCode.MESSAGE_TOO_LARGE,
        ErrorCode.RECORD_LIST_TOO_LARGE,
        ErrorCode.INVALID_REQUIRED_ACKS,
    }
)
_DONE = frozenset(
    {
        ErrorCode.NONE,
        # A deleted partition: Kafka drops it once the leader lookup fails.
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT,
        ErrorCode.UNSUPPORTED_VERSION,
    }
)


def classify_marker_error(error_code: int) -> MarkerOutcome:
    if error_code in _DONE:
        return MarkerOutcome.DONE
    if error_code in _OBSOLETE:
        return MarkerOutcome.OBSOLETE
    if error_code in _RETRIABLE:
        return MarkerOutcome.RETRY
    return MarkerOutcome.RETRY


@dataclass(frozen=True, slots=True)
class MarkerCall:
    producer_id: int
    producer_epoch: int
    coordinator_epoch: int
    committed: bool
    partitions: tuple[TopicPartition, ...]


@dataclass
class InMemoryMarkerWriter:
    """A MarkerWriter for tests: keeps the control batches it "wrote" per partition.

    `errors[tp]` is a queue of error codes the next writes to tp answer with; `unknown`
    partitions answer UNKNOWN_TOPIC_OR_PARTITION; while `gate` is set and not released,
    writes wait on it (markers in flight)."""

    calls: list[MarkerCall] = field(default_factory=list)
    batches: dict[TopicPartition, list[bytes]] = field(default_factory=dict)
    written: dict[TopicPartition, list[tuple[int, int, bool]]] = field(default_factory=dict)
    errors: dict[TopicPartition, list[int]] = field(default_factory=dict)
    unknown: set[TopicPartition] = field(default_factory=set)
    gate: asyncio.Event | None = None
    timestamp_ms: int = 0

    async def write_markers(
        self,
        producer_id: int,
        producer_epoch: int,
        coordinator_epoch: int,
        committed: bool,
        partitions: list[TopicPartition],
        transaction_version: int = 0,
    ) -> dict[TopicPartition, int]:
        self.calls.append(
            MarkerCall(producer_id, producer_epoch, coordinator_epoch, committed, tuple(partitions))
        )
        if self.gate is not None:
            await self.gate.wait()
        result: dict[TopicPartition, int] = {}
        for tp in partitions:
            queued = self.errors.get(tp)
            if queued:
                result[tp] = queued.pop(0)
                continue
            if tp in self.unknown:
                result[tp] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                continue
            self.batches.setdefault(tp, []).append(
                build_control_batch(
                    ControlType.COMMIT if committed else ControlType.ABORT,
                    producer_id=producer_id,
                    producer_epoch=producer_epoch,
                    coordinator_epoch=coordinator_epoch,
                    timestamp=self.timestamp_ms,
                )
            )
            self.written.setdefault(tp, []).append((producer_id, producer_epoch, committed))
            result[tp] = ErrorCode.NONE
        return result


class EngineMarkerWriter:
    """Writes markers into the storage engine's partition logs through the same code path as
    the WriteTxnMarkers API (`storage.txn_markers.write_txn_markers`): origin COORDINATOR,
    the leader's marker checks, LSO and aborted-transaction index, one flush. `listeners`
    are told of each marker once durable (the group coordinator uses it to settle pending
    offsets of `__consumer_offsets`)."""

    def __init__(
        self, engine: StorageEngine, clock: Clock, listeners: list[MarkerListener] | None = None
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.listeners: list[MarkerListener] = listeners or []

    async def write_markers(
        self,
        producer_id: int,
        producer_epoch: int,
        coordinator_epoch: int,
        committed: bool,
        partitions: list[TopicPartition],
        transaction_version: int = 0,
    ) -> dict[TopicPartition, int]:
        return await write_txn_markers(
            self.engine,
            self.clock,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            coordinator_epoch=coordinator_epoch,
            committed=committed,
            partitions=partitions,
            listeners=self.listeners,
            transaction_version=transaction_version,
        )
