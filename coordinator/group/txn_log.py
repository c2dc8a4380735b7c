"""Appending transactional offset commits to `__consumer_offsets`.

TxnOffsetCommit writes its offset records as one transactional batch carrying the
producer's id and epoch, as Kafka's coordinator runtime writes them; the
COMMIT/ABORT marker later written to the same partition decides them, in memory and on
replay. These logs add that append to the plain coordinator logs.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from coordinator.log import CoordinatorLogError, LogRecord, MemoryCoordinatorLog, StorageCoordinatorLog
from protocol import record_batch as rb
from protocol.errors import ErrorCode


@runtime_checkable
class TransactionalOffsetsLog(Protocol):
    async def append_transactional(
        self,
        partition: int,
        records: list[tuple[bytes, bytes | None]],
        timestamp: int,
        producer_id: int,
        producer_epoch: int,
    ) -> int:
        """Append records as one transactional batch, durably; returns the first offset."""
        ...


def _error(code: int) -> ErrorCode:
    try:
        return ErrorCode(code)
    except ValueError:
        return ErrorCode.KAFKA_STORAGE_ERROR


class StorageOffsetsLog(StorageCoordinatorLog):
    async def append_transactional(
        self,
        partition: int,
        records: list[tuple[bytes, bytes | None]],
        timestamp: int,
        producer_id: int,
        producer_epoch: int,
    ) -> int:
        from storage import AppendOrigin, StorageError

        await self.ensure_topic()
        batch = rb.build_batch(
            [rb.Record(key, value, timestamp=timestamp) for key, value in records],
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            # Kafka writes NO_SEQUENCE here; the log's batch validation requires a sequence
            # of every non-control batch with a producer id, whatever its origin, and the
            # leader does not check sequences of coordinator appends, so 0 is equivalent.
            base_sequence=0,
            transactional=True,
        )
        try:
            result = await self.storage.log(self.topic, partition).append(
                batch, durable=True, origin=AppendOrigin.COORDINATOR
            )
        except StorageError as exc:
            # Keep the leader's own verdict (e.g. INVALID_PRODUCER_EPOCH for a stale epoch).
            raise CoordinatorLogError(_error(exc.error_code), str(exc)) from exc
        except OSError as exc:
            raise CoordinatorLogError(ErrorCode.KAFKA_STORAGE_ERROR, str(exc)) from exc
        return int(result.base_offset)


class MemoryOffsetsLog(MemoryCoordinatorLog):
    """In-memory log with transactional batches and markers, for unit tests."""

    async def append_transactional(
        self,
        partition: int,
        records: list[tuple[bytes, bytes | None]],
        timestamp: int,
        producer_id: int,
        producer_epoch: int,
    ) -> int:
        if self.append_gate is not None:
            await self.append_gate.wait()
        if self.fail_with is not None:
            raise CoordinatorLogError(self.fail_with)
        base = len(self.records[partition])
        for key, value in records:
            self.append_raw(partition, LogRecord(0, key, value, producer_id, True))
        return base

    def append_marker(self, partition: int, producer_id: int, committed: bool) -> None:
        self.append_raw(partition, LogRecord(0, None, None, producer_id, True, committed))
