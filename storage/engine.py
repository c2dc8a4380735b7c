"""The storage engine interface the broker and coordinators program against.

Deliberately narrow and async so other engines (tiered, replicated) can sit behind it.
`FileStorage` (storage.file_storage) and `MemoryStorage` (storage.memory) implement it
and are run through the same contract tests.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

# Re-exported: callers import the append types from the engine interface.
from .append_types import AppendOrigin, AppendResult
from .file_records import FileRecords

if TYPE_CHECKING:
    import asyncio

    from protocol.record_batch import BatchHeader

    from .append_signal import AppendSignal
    from .producer_state import ProducerInfo
    from .topic_config import ConfigEntry, TopicConfig

# ListOffsets special timestamps.
LATEST_TIMESTAMP = -1
EARLIEST_TIMESTAMP = -2
MAX_TIMESTAMP = -3
EARLIEST_LOCAL_TIMESTAMP = -4

READ_UNCOMMITTED = 0
READ_COMMITTED = 1

# The longest a consumer's read waits for the fsync round covering records already written
# before it answers with the high watermark as it stands (PartitionLog.wait_visible): far
# above a round's usual length, short of a client's request timeout.
VISIBILITY_WAIT_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class ReadResult:
    records: bytes | memoryview  # whole raw batches, possibly empty
    high_watermark: int
    last_stable_offset: int
    log_start_offset: int
    log_end_offset: int
    # Asked for with `read(file_records=True)`: the batches as a range of their file
    # instead of `records` (then empty), where the engine and the range allow it.
    file: FileRecords | None = None


@dataclass(frozen=True, slots=True)
class AbortedTransaction:
    producer_id: int
    first_offset: int


@dataclass(frozen=True, slots=True)
class OffsetAndTimestamp:
    offset: int
    timestamp: int  # -1 for the earliest/latest lookups


@dataclass(frozen=True, slots=True)
class TopicInfo:
    name: str
    topic_id: uuid.UUID
    num_partitions: int
    config: TopicConfig
    internal: bool = False


class PartitionLog(Protocol):
    """One partition's log."""

    @property
    def topic(self) -> str: ...

    @property
    def partition(self) -> int: ...

    @property
    def log_start_offset(self) -> int: ...

    @property
    def log_end_offset(self) -> int: ...

    @property
    def high_watermark(self) -> int:
        """The end of the durable prefix: what consumers may read. A write becomes visible
        when an fsync round covers it (at once when nothing needs fsyncing)."""
        ...

    @property
    def last_stable_offset(self) -> int: ...

    @property
    def size_bytes(self) -> int: ...

    async def append(
        self,
        records: bytes | bytearray | memoryview,
        *,
        durable: bool = False,
        origin: AppendOrigin = AppendOrigin.CLIENT,
        leader_epoch: int = 0,
        transaction_version: int = 0,
        lazy: bool = False,
        trusted: bool = False,
    ) -> AppendResult:
        """Validate (header + CRC only), assign offsets and write one batch, starting (or
        joining) the fsync round that makes it visible. With durable=True (acks=all)
        return only after that round, the high watermark past the batch (else
        KafkaStorageError, as `sync`). With `lazy` the
        write joins the next round and starts it only on the next turn of the event loop,
        after its writer has answered: a later step waits for its durability (a
        transaction's data: EndTxn), and it becomes visible when the round ends. A marker
        (control batch, origin COORDINATOR) with `transaction_version` 2 must carry an
        epoch above the producer's, as transaction version 2 coordinators bump it.
        `trusted`: a coordinator's batch built in this process, whose CRC and records are
        not checked again (`storage.log.Log.append_nowait`)."""
        ...

    def needs_verification(self, header: BatchHeader) -> bool:
        """KIP-890: whether a client's transactional batch would open a transaction at this
        partition, so the transaction coordinator must first confirm the partition is in
        the producer's ongoing transaction (duplicates and stale epochs do not: the append
        answers them)."""
        ...

    async def read(
        self,
        fetch_offset: int,
        max_bytes: int,
        *,
        min_one_batch: bool = True,
        upper_bound: int | None = None,
        file_records: bool = False,
    ) -> ReadResult:
        """Raw whole batches starting with the one holding `fetch_offset`, below
        `upper_bound` (default: high watermark). OffsetOutOfRangeError outside
        [log_start_offset, log_end_offset]. `file_records`: as a range of their segment
        file where possible (`ReadResult.file`), for a Fetch to send with sendfile."""
        ...

    async def sync(self) -> None:
        """Return once everything written to this log so far is durable; unlike
        `StorageEngine.sync`, it need not wait for other logs' writes. Raises
        KafkaStorageError unless the high watermark then covers them (a log dropped
        meanwhile: its partition lost in a cluster)."""
        ...

    async def wait_visible(self, timeout: float) -> None:
        """Wait, at most `timeout` seconds, until everything written so far is below the
        high watermark (its fsync round is already under way)."""
        ...

    def visibility_round(self) -> asyncio.Future[None] | None:
        """The fsync round after which everything written so far is below the high
        watermark (None: it already is)."""
        ...

    def aborted_transactions(self, start_offset: int, end_offset: int) -> list[AbortedTransaction]: ...

    async def list_offset(
        self, timestamp: int, *, isolation_level: int | None = READ_UNCOMMITTED
    ) -> OffsetAndTimestamp | None:
        """ListOffsets: -2 earliest, -1 latest, -3 max timestamp, else the first offset
        whose timestamp >= `timestamp`; None when no such record exists below the last
        fetchable offset (the LSO for READ_COMMITTED, the high watermark for
        READ_UNCOMMITTED, the log end for None: not a consumer's request). A consumer's
        lookup first waits (bounded) for records already written to become visible."""
        ...

    async def delete_records_before(self, offset: int) -> int:
        """DeleteRecords: advance the log start offset (-1 = high watermark); returns it
        once durable (raises if it never will be: the log dropped). Records already written
        first become visible (bounded wait), as for ListOffsets."""
        ...

    def segment_base_offsets(self) -> list[int]: ...

    def active_producers(self) -> list[ProducerInfo]:
        """DescribeProducers: the producers the partition's producer state knows."""
        ...


class StorageEngine(Protocol):
    # False when this start recovered from an unclean shutdown: writes that no fsync round
    # covered may be gone (the transaction coordinator aborts the transactions left open).
    clean_start: bool

    @property
    def appended(self) -> AppendSignal:
        """Fires per partition on every change of its log: client batches, transaction
        markers and coordinator records made durable (high watermark, last stable offset),
        the log start moved, cleaned segments swapped in, the log deleted. Fetch long
        polls wait on it."""
        ...

    async def create_topic(
        self,
        name: str,
        num_partitions: int,
        configs: Mapping[str, str | None] | None = None,
        *,
        topic_id: uuid.UUID | None = None,
        validate_only: bool = False,
    ) -> TopicInfo: ...

    async def delete_topic(self, name_or_id: str | uuid.UUID) -> TopicInfo: ...

    async def create_partitions(self, name: str, total_count: int, *, validate_only: bool = False) -> TopicInfo: ...

    async def alter_topic_configs(
        self,
        name: str,
        changes: Mapping[str, str | None],
        *,
        replace: bool = False,
        validate_only: bool = False,
    ) -> TopicInfo: ...

    def set_broker_defaults(self, defaults: Mapping[str, str]) -> None:
        """Replace the broker-level topic defaults (keyed by topic config name)."""
        ...

    def list_topics(self) -> list[TopicInfo]: ...

    def describe_topic(self, name_or_id: str | uuid.UUID) -> TopicInfo: ...

    def describe_configs(self, name: str, names: list[str] | None = None) -> list[ConfigEntry]: ...

    def log(self, topic: str, partition: int) -> PartitionLog: ...

    def log_by_id(self, topic_id: uuid.UUID, partition: int) -> PartitionLog: ...

    async def sync(self) -> None:
        """Make every append so far durable (group-committed with concurrent callers).
        Not the appends to a log dropped meanwhile (a PostgreSQL cluster's partition lost:
        what no round committed is never written): a caller answering for particular
        logs checks that each one's high watermark covers its writes (storage/txn_markers.py),
        as `PartitionLog.sync` and a durable append do."""
        ...

    async def enforce_retention(self) -> int:
        """Delete segments past retention.ms / retention.bytes; returns segments deleted."""
        ...

    async def compact(self) -> int:
        """Run the log cleaner over the partitions of compacted topics that are due
        (storage.cleaner); returns the number of partitions cleaned."""
        ...

    async def checkpoint(self) -> None:
        """Flush everything and persist recovery points (call periodically)."""
        ...

    async def close(self) -> None:
        """Clean shutdown: flush, write index tails, mark the shutdown clean."""
        ...
