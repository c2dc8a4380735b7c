"""The data plane behind the Produce, Fetch, ListOffsets, DeleteRecords and WriteTxnMarkers
handlers, as
Kafka's ReplicaManager: the handlers keep their version gates, ACLs and response shapes.

Appends. Batches stay opaque: the log checks the header and CRC, rewrites the base offset
and appends. Every partition of a request is written before the one fsync that `acks=all`
waits for, so a request costs one group-committed flush however many partitions it has.
A transaction's batches are acknowledged once written: their fsync round starts after the
answer has gone out, and EndTxn is answered only once a round has covered them
(TransactionCoordinator.defers_data_durability). Idempotence and transactions are checked
by the log's producer state (sequences, epochs, duplicates); a transactional batch that
would open a transaction at a partition is first verified with the transaction
coordinator (KIP-890, broker/dataplane/verification.py). Verification is an in-process
call, so the appends still happen in request order before the first suspension.

Reads. A Fetch is answered as soon as it has `min_bytes`, an error, or its wait ran out;
until then it parks on the storage engine's append signal for its partitions and re-reads
when one of their logs changes (an append moved the high watermark, a marker the last
stable offset, ...), as Kafka's DelayedFetch does.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Sequence
from typing import cast

from broker.dataplane import verification
from broker.dataplane.types import (
    AppendEntry,
    FetchPartitionData,
    FetchTarget,
    LeadershipCheck,
    PartitionAppend,
    TransactionSupportedOperation,
    TransactionVerifier,
)
from broker.logging import get_logger
from broker.topic_names import is_internal
from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.record_batch import iter_batches
from storage.clock import Clock
from storage.engine import (
    READ_COMMITTED,
    VISIBILITY_WAIT_SECONDS,
    OffsetAndTimestamp,
    PartitionLog,
    StorageEngine,
    TopicInfo,
)
from storage.errors import OffsetOutOfRangeError, StorageError, UnknownTopicOrPartitionError
from storage.topic_partition import TopicPartition
from storage.txn_markers import MarkerListener, write_txn_markers

# DeleteRecords: -1 deletes up to the high watermark; the low watermark of a refusal.
HIGH_WATERMARK = -1
INVALID_LOW_WATERMARK = -1
# ListOffsets: the last tiered offset (KIP-1005).
LATEST_TIERED_TIMESTAMP = -5

log = get_logger("odradek.produce")
# The refusals of Kafka's LogValidator (a RecordValidationException), whose text Kafka answers.
_CUSTOM_MESSAGE_ERRORS = frozenset({ErrorCode.INVALID_RECORD, ErrorCode.INVALID_TIMESTAMP})


class ReplicaManager:
    """Appends, reads, deletions and offset lookups on this broker's partitions."""

    def __init__(
        self,
        storage: StorageEngine,
        transactions: TransactionVerifier,
        clock: Clock,
        *,
        leadership: LeadershipCheck | None = None,
    ) -> None:
        self.storage = storage
        self.transactions = transactions
        self.clock = clock
        # Cluster mode: only the partitions this broker leads are served (Kafka's
        # ReplicaManager.getPartitionOrError); None for a single broker, which leads all.
        self.leadership = leadership
        self._producer_order = verification.ProducerOrder()

    # -- Produce ---------------------------------------------------------------------

    async def append_records(
        self,
        entries: Sequence[AppendEntry],
        *,
        acks: int,
        transactional_id: str | None,
        operation: TransactionSupportedOperation,
    ) -> list[PartitionAppend]:
        """Append each entry in order; one answer per entry. With acks=-1, return once the
        appends are durable (a transaction's: once written, see the module docstring)."""
        # A transaction's data is made durable by the round its EndTxn waits for.
        deferred = transactional_id is not None and self.transactions.defers_data_durability(transactional_id)
        outcomes: list[PartitionAppend] = []
        # Of each outcome written so (not lazily): its log.
        written: dict[int, PartitionLog] = {}
        for entry in entries:
            outcome, lazy, partition_log = await self._append(entry, transactional_id, operation, deferred)
            if outcome.error == ErrorCode.NONE and not lazy and partition_log is not None:
                written[len(outcomes)] = partition_log
            outcomes.append(outcome)
        # Parked fetches were woken by the appends themselves (StorageEngine.appended); the
        # flush below only gates this producer's acknowledgement. Each partition's own
        # writes, as Kafka's acks=all waits for each partition's replicas: a small record
        # does not wait for the fsync of what other producers wrote to other partitions.
        if acks == -1 and written:
            # Each log's sync raises unless its own high watermark covers its writes
            # (storage.log.Log.sync): the first batch's append started a round of its own,
            # which may fail (its partition lost meanwhile, its fence) as the log is dropped
            # (storage/postgres/engine.py `_abandon`), while the round the others wait for
            # commits them. Each partition is answered by its own log's outcome.
            logs = list(dict.fromkeys(written.values()))
            if len(logs) == 1:
                try:
                    await logs[0].sync()
                    failed: dict[PartitionLog, StorageError] = {}
                except StorageError as exc:
                    failed = {logs[0]: exc}
            else:
                synced = await asyncio.gather(*(w.sync() for w in logs), return_exceptions=True)
                failed = {}
                for w, raised in zip(logs, synced, strict=True):
                    if isinstance(raised, StorageError):
                        failed[w] = raised
                    elif isinstance(raised, BaseException):
                        raise raised
            for i, partition_log in written.items():
                error = failed.get(partition_log)
                if error is not None:
                    log.error("flush failed", topic=entries[i].topic, partition=entries[i].partition,
                              error=str(error))
                    outcomes[i] = PartitionAppend(ErrorCode.KAFKA_STORAGE_ERROR)
        return outcomes

    async def _append(
        self,
        entry: AppendEntry,
        transactional_id: str | None,
        operation: TransactionSupportedOperation,
        deferred: bool,
    ) -> tuple[PartitionAppend, bool, PartitionLog | None]:
        """The entry's outcome, whether it was written lazily (its round not started), and
        the log written to."""
        try:
            # A topic resolved earlier in the request may have been deleted since.
            partition_log = self.storage.log(entry.topic, entry.partition)
        except StorageError as exc:
            return PartitionAppend(ErrorCode(exc.error_code), log_missing=True), False, None
        refused = self._not_leader(entry.topic, entry.partition)
        if refused != ErrorCode.NONE:
            return PartitionAppend(refused), False, None
        header = _peek_header(entry.records)
        verify = header is not None and header.is_transactional and partition_log.needs_verification(header)
        # The implicit add, and the verification of a partition whose add is still being
        # made durable, suspend; the producer's pipelined batches wait behind them so they
        # still reach the log in the order sent.
        order = self._producer_order.lock(transactional_id) if verify else contextlib.nullcontext()
        async with order:
            if verify:
                assert header is not None
                code = await verification.verify(
                    self.transactions, transactional_id, header, (entry.topic, entry.partition), operation
                )
                if code != ErrorCode.NONE:
                    log.info("transactional produce not verified", topic=entry.topic, partition=entry.partition,
                             producer_id=header.producer_id, error=code.name)
                    return PartitionAppend(code), False, None
            lazy = deferred and header is not None and header.is_transactional
            try:
                result = await partition_log.append(
                    entry.records, lazy=lazy, leader_epoch=self._leader_epoch(entry.topic, entry.partition)
                )
            except StorageError as exc:
                code = ErrorCode(exc.error_code)
                log.info("produce refused", topic=entry.topic, partition=entry.partition, error=code.name,
                         reason=str(exc))
                # Kafka answers its own text only for records its LogValidator refused
                # (ReplicaManager.appendToLocalLog: hasCustomErrorMessage); the other refusals
                # (too large, sequence, epoch, ...) carry none and clients show their own.
                message = str(exc) if code in _CUSTOM_MESSAGE_ERRORS else None
                return PartitionAppend(code, message=message, record_errors=list(exc.record_errors)), False, None
        return PartitionAppend(result=result), lazy, partition_log

    def _not_leader(self, topic: str, partition: int, current_leader_epoch: int = -1) -> ErrorCode:
        """NONE when this broker serves the partition (always, outside a cluster)."""
        if self.leadership is None:
            return ErrorCode.NONE
        try:
            topic_id = self.storage.describe_topic(topic).topic_id
        except StorageError as exc:
            return ErrorCode(exc.error_code)
        return self.leadership.check((topic_id, partition), current_leader_epoch)

    def _leader_epoch(self, topic: str, partition: int) -> int:
        """The epoch a client batch is stamped with: the served one (0 outside a cluster)."""
        if self.leadership is None:
            return 0
        try:
            return self.leadership.served_epoch((self.storage.describe_topic(topic).topic_id, partition))
        except StorageError:
            return 0

    # -- WriteTxnMarkers --------------------------------------------------------------

    async def write_txn_markers(
        self,
        *,
        producer_id: int,
        producer_epoch: int,
        coordinator_epoch: int,
        committed: bool,
        partitions: Iterable[TopicPartition],
        listeners: Iterable[MarkerListener] = (),
        transaction_version: int = 0,
    ) -> dict[TopicPartition, int]:
        """A COMMIT or ABORT marker appended to each partition, as the in-process
        coordinator's are (storage.txn_markers); one error code per partition. Only to the
        partitions this broker serves, as Kafka's appendRecords (getPartitionOrError): one
        elected here but still being read back answers NOT_LEADER_OR_FOLLOWER (retried),
        rather than taking the marker into a log opened unserved, which no round may write."""
        result: dict[TopicPartition, int] = {}
        led: list[TopicPartition] = []
        for tp in partitions:
            refused = self._not_leader(tp[0], tp[1])
            if refused != ErrorCode.NONE:
                result[tp] = refused
            else:
                led.append(tp)
        if led:
            result.update(await write_txn_markers(
                self.storage,
                self.clock,
                producer_id=producer_id,
                producer_epoch=producer_epoch,
                coordinator_epoch=coordinator_epoch,
                committed=committed,
                partitions=led,
                listeners=listeners,
                transaction_version=transaction_version,
            ))
        return result

    # -- Fetch -----------------------------------------------------------------------

    async def fetch(
        self,
        targets: Sequence[FetchTarget],
        *,
        by_id: bool,
        isolation_level: int,
        max_bytes: int,
        min_bytes: int,
        max_wait_ms: int,
        file_records: bool = False,
    ) -> list[FetchPartitionData]:
        """Read the targets, waiting (long poll) until `min_bytes` are there, an error is,
        or `max_wait_ms` ran out. One answer per target. `file_records`: large records as
        ranges of their segment files (storage.file_records.FileRecords) where the engine
        allows, for a Fetch response written with sendfile (broker/connection.py)."""
        deadline = self.clock.monotonic_ms() + max(0, max_wait_ms)
        appended = self.storage.appended
        await self._written_made_visible(targets, by_id)
        while True:
            seen = appended.changes
            answers, total_bytes, has_error = await self._read(targets, by_id, isolation_level, max_bytes, file_records)
            remaining_ms = deadline - self.clock.monotonic_ms()
            if total_bytes >= min_bytes or has_error or remaining_ms <= 0:
                return answers
            await appended.wait(_partitions(targets), remaining_ms / 1000, since=seen)

    def _log(self, info: TopicInfo, partition: int, by_id: bool) -> PartitionLog:
        # Looked up on every pass: the topic resolved when the request arrived may have
        # been deleted (and its name reused) while the fetch was parked; by id that is
        # UNKNOWN_TOPIC_ID (UnknownTopicIdError).
        return self.storage.log_by_id(info.topic_id, partition) if by_id else self.storage.log(info.name, partition)

    async def _written_made_visible(self, targets: Sequence[FetchTarget], by_id: bool) -> None:
        """Records are read once durable (the high watermark is the end of the fsynced
        prefix), and acks=1 is answered before that. So that a consumer reads everything
        acknowledged before its fetch arrived, as from Kafka with one replica, the fetch
        first waits for the fsync rounds already covering what its partitions hold (one
        round, well under a millisecond; bounded). A parked fetch is woken by later rounds
        as they end."""
        rounds = set()
        for target in targets:
            if target.error is not None or target.topic is None:
                continue
            try:
                partition_log = self._log(target.topic, target.partition, by_id)
            except StorageError:
                continue
            round_ = partition_log.visibility_round()
            if round_ is not None and target.fetch_offset < partition_log.log_end_offset:
                rounds.add(round_)
        if rounds:
            await asyncio.wait(rounds, timeout=VISIBILITY_WAIT_SECONDS)

    async def _read(
        self, targets: Sequence[FetchTarget], by_id: bool, isolation_level: int, max_bytes: int,
        file_records: bool = False,
    ) -> tuple[list[FetchPartitionData], int, bool]:
        read_committed = isolation_level == READ_COMMITTED
        budget = max_bytes
        total = 0
        has_error = False
        answers: list[FetchPartitionData] = []
        for target in targets:
            out = FetchPartitionData()
            answers.append(out)
            if target.error is not None or target.topic is None:
                out.error = target.error if target.error is not None else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                has_error = True
                continue
            try:
                partition_log = self._log(target.topic, target.partition, by_id)
            except UnknownTopicOrPartitionError as exc:
                out.error = exc.error_code
                has_error = True
                continue
            refused = self._not_leader(target.topic.name, target.partition, target.current_leader_epoch)
            if refused != ErrorCode.NONE:
                out.error = refused
                has_error = True
                continue
            upper = partition_log.last_stable_offset if read_committed else partition_log.high_watermark
            try:
                result = await partition_log.read(
                    target.fetch_offset,
                    max(0, min(target.max_bytes, budget)),
                    # KIP-74: the first partition with data returns a whole batch even when it
                    # exceeds the limits, so that a consumer can always make progress.
                    min_one_batch=total == 0,
                    upper_bound=upper,
                    file_records=file_records,
                )
            except OffsetOutOfRangeError:
                out.error = ErrorCode.OFFSET_OUT_OF_RANGE
                out.high_watermark = partition_log.high_watermark
                out.last_stable_offset = partition_log.last_stable_offset
                out.log_start_offset = partition_log.log_start_offset
                has_error = True
                continue
            except StorageError as exc:
                out.error = exc.error_code
                has_error = True
                continue
            out.high_watermark = result.high_watermark
            out.last_stable_offset = result.last_stable_offset
            out.log_start_offset = result.log_start_offset
            in_file = result.file
            # The Fetch response's writer takes a file range as one of its buffers, as it
            # takes large bytes (protocol.codec.Writer.nullable_records): never copied.
            out.records = result.records if in_file is None else cast(memoryview, in_file)
            size = len(out.records)
            total += size
            budget -= size
            if read_committed:
                start = target.fetch_offset
                if in_file is not None:
                    end = in_file.next_offset
                else:
                    end = start + 1 if not size else _end_offset_hint(result.records, start)
                out.aborted_transactions = partition_log.aborted_transactions(start, max(end, start + 1))
        return answers, total, has_error

    # -- ListOffsets -----------------------------------------------------------------

    async def offset_for_timestamp(
        self, topic: str, partition: int, timestamp: int, isolation_level: int | None,
        current_leader_epoch: int = -1,
    ) -> tuple[OffsetAndTimestamp | None, ErrorCode]:
        """The offset of `timestamp` (or a special timestamp) below the last fetchable
        offset of `isolation_level` (storage.log.Log.list_offset); None when there is none."""
        try:
            # Looked up per partition: the topic may be deleted under a concurrent request.
            partition_log = self.storage.log(topic, partition)
            refused = self._not_leader(topic, partition, current_leader_epoch)
            if refused != ErrorCode.NONE:
                return None, refused
            if timestamp == LATEST_TIERED_TIMESTAMP:
                # Nothing is tiered: Kafka answers "no such offset".
                return None, ErrorCode.NONE
            return await partition_log.list_offset(timestamp, isolation_level=isolation_level), ErrorCode.NONE
        except StorageError as exc:
            return None, ErrorCode(exc.error_code)

    # -- DeleteRecords ---------------------------------------------------------------

    async def delete_records(self, topic: str, partition: int, offset: int) -> tuple[int, ErrorCode]:
        """Advance the partition's log start offset to `offset` (-1: the high watermark);
        the new low watermark, or INVALID_LOW_WATERMARK and the error."""
        if is_internal(topic):
            return INVALID_LOW_WATERMARK, ErrorCode.INVALID_TOPIC_EXCEPTION
        try:
            partition_log = self.storage.log(topic, partition)
            refused = self._not_leader(topic, partition)
            if refused != ErrorCode.NONE:
                return INVALID_LOW_WATERMARK, refused
            config = self.storage.describe_topic(topic).config
            if config.compact and not config.delete:
                # Deleting a prefix would break compaction's per-key guarantee.
                return INVALID_LOW_WATERMARK, ErrorCode.POLICY_VIOLATION
            if offset < HIGH_WATERMARK:
                return INVALID_LOW_WATERMARK, ErrorCode.OFFSET_OUT_OF_RANGE
            return await partition_log.delete_records_before(offset), ErrorCode.NONE
        except StorageError as exc:
            return INVALID_LOW_WATERMARK, ErrorCode(exc.error_code)


def _peek_header(records: bytes | bytearray | memoryview) -> rb.BatchHeader | None:
    """The first batch's header, unvalidated (the append validates it)."""
    if len(records) < rb.HEADER_SIZE:
        return None
    return rb.BatchHeader.parse(records)


def _partitions(targets: Sequence[FetchTarget]) -> list[tuple[str, int]]:
    """The partitions a parked fetch waits on (unknown ones answered an error already)."""
    return [(t.topic.name, t.partition) for t in targets if t.topic is not None]


def _end_offset_hint(records: bytes | memoryview, fetch_offset: int) -> int:
    """The offset after the last batch returned: the end of the range aborted transactions
    are reported for."""
    last = fetch_offset
    for _, header in iter_batches(records):
        last = header.last_offset + 1
    return last
