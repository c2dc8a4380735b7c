"""Writing COMMIT/ABORT markers into partition logs: the one code path behind both the
WriteTxnMarkers API and the in-process transaction coordinator (Kafka's appendEndTxnMarker).

Each partition gets a control batch appended with origin COORDINATOR, which runs the
log's marker checks (producer epoch, coordinator epoch), ends the producer's open
transaction there (LSO, aborted-transaction index). All partitions are written first,
then made durable with one group-committed flush; only then are listeners told (the
group coordinator settles pending transactional offsets of `__consumer_offsets`).

A marker is answered NONE only once its own log's high watermark covers it. The flush
waits for the round that takes the last marker; the first marker's append started a
round of its own, which may fail (in a cluster, its fence: the partition not served yet)
while the log is dropped (reloaded from PostgreSQL, storage/postgres/engine.py
`_abandon`) so that no later round writes it: the flush then succeeds with that marker
lost, and a coordinator told NONE would complete the transaction without it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable

from protocol.errors import ErrorCode
from protocol.record_batch import ControlType, build_control_batch

from .clock import Clock
from .engine import AppendOrigin, PartitionLog, StorageEngine
from .errors import StorageError
from .topic_partition import TopicPartition

logger = logging.getLogger(__name__)

# (partition, producer id, committed): awaited after the marker is durable.
MarkerListener = Callable[[TopicPartition, int, bool], Awaitable[None]]


async def write_txn_markers(
    storage: StorageEngine,
    clock: Clock,
    *,
    producer_id: int,
    producer_epoch: int,
    coordinator_epoch: int,
    committed: bool,
    partitions: Iterable[TopicPartition],
    listeners: Iterable[MarkerListener] = (),
    transaction_version: int = 0,
) -> dict[TopicPartition, int]:
    """Append the marker to every partition; one error code per partition (NONE when
    written). Appends happen in order before the first suspension. `transaction_version`
    2 (WriteTxnMarkers v2) applies the strict epoch rule of TV2 coordinators."""
    control = ControlType.COMMIT if committed else ControlType.ABORT
    result: dict[TopicPartition, int] = {}
    written: list[TopicPartition] = []
    # Each marker's log and the offset past it: durable once the high watermark is there.
    ends: dict[TopicPartition, tuple[PartitionLog, int]] = {}
    for tp in partitions:
        batch = build_control_batch(
            control,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            coordinator_epoch=coordinator_epoch,
            timestamp=clock.now_ms(),
        )
        try:
            log = storage.log(tp[0], tp[1])
            # durable=False: the append completes without suspending; the flush is below.
            appended = await log.append(
                batch, origin=AppendOrigin.COORDINATOR, transaction_version=transaction_version
            )
        except StorageError as exc:
            result[tp] = exc.error_code
            continue
        result[tp] = ErrorCode.NONE
        written.append(tp)
        ends[tp] = (log, appended.last_offset + 1)
    if not written:
        return result
    try:
        await storage.sync()
    except StorageError as exc:
        logger.error("marker flush failed: %s", exc)
        for tp in written:
            result[tp] = exc.error_code
        return result
    lost = [tp for tp in written if ends[tp][0].high_watermark < ends[tp][1]]
    if lost:
        logger.warning("markers not made durable (their logs were dropped): %s", lost)
        for tp in lost:
            result[tp] = ErrorCode.KAFKA_STORAGE_ERROR
        written = [tp for tp in written if tp not in lost]
    listeners = list(listeners)
    for tp in written:
        for listener in listeners:
            try:
                await listener(tp, producer_id, committed)
            except Exception:
                # Kafka answers a failure of the group coordinator's completion with
                # NOT_LEADER_OR_FOLLOWER, so the marker is sent again.
                logger.exception("marker listener failed for %s-%d", tp[0], tp[1])
                result[tp] = ErrorCode.NOT_LEADER_OR_FOLLOWER
    return result
