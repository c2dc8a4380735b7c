"""The sink's `microBatch` transaction mode: executors prepare, the driver commits (KIP-939).

Each Spark task writes its rows and its batch marker in a transaction of its own id, begun
with InitProducerId(Enable2Pc) so that no timeout aborts it, flushes, and stops: prepared,
not committed. Its commit message carries the transaction's (producer id, epoch). The driver
first records its decision, one offset per Spark partition (offset = batch id, metadata = the
prepared producer id and epoch) in group `<prefix>-decisions`, committed in one transaction of
its own; then it takes every prepared transaction over with InitProducerId(KeepPreparedTxn)
and commits it. So the whole micro-batch becomes visible together.

Whoever next finds a transaction left prepared on a task's id (the task's retry, the replay
of the batch after a driver crash, the driver's abort) settles it: committed when the
decision names that very (producer id, epoch), aborted otherwise. The replay then skips the
Spark partitions whose marker shows the batch committed and rewrites the others."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pyarrow as pa
from pyspark.sql.datasource import WriterCommitMessage

from pipeline.failure_injection import maybe_fail
from pipeline.markers import (
    Marker,
    RowDigest,
    ensure_marker_partition,
    marker_group,
    read_committed_offset,
    read_marker,
)
from pipeline.sink_options import SinkOptions
from pipeline.transactional_write import SinkCommitMessage, rows_of, skip_replay, transactional_id
from pipeline.txn_producer import NO_PRODUCER_ID, TxnProducer
from pipeline.wire import Cluster

log = logging.getLogger(__name__)


@dataclass
class PreparedCommitMessage(SinkCommitMessage):
    prefix: str
    producer_id: int
    producer_epoch: int


def decision_group(prefix: str) -> str:
    return f"{prefix}-decisions"


def decision_transactional_id(prefix: str) -> str:
    return f"{prefix}-decisions"


def prepare_task(
    options: SinkOptions,
    batches: Iterator[pa.RecordBatch],
    prefix: str,
    batch_id: int,
    spark_partition: int,
    attempt: int,
) -> SinkCommitMessage:
    """Executor side: the task's rows and marker in a prepared transaction (or a skip)."""
    ensure_marker_partition(options, spark_partition)
    txn_id = transactional_id(prefix, spark_partition)
    with Cluster(options.bootstrap_servers) as cluster:
        producer = TxnProducer(cluster, txn_id)
        settle(options, producer, prefix, spark_partition)
        marker = read_marker(options, prefix, spark_partition)
        if marker is not None and marker.batch_id >= batch_id:
            return skip_replay(options, batches, marker, txn_id, batch_id, spark_partition)
        producer.init(two_phase=True)
        digest = RowDigest()
        for batch in batches:
            for row in rows_of(batch, options.topic):
                digest.add(*row)
                producer.append(row)
        producer.flush()
        done = Marker(batch_id, digest.rows, digest.hexdigest())
        producer.commit_offsets(
            marker_group(prefix), {(options.marker_topic, spark_partition): (batch_id, done.metadata())}
        )
        maybe_fail(options.inject_failure, "afterProduce", batch_id, spark_partition, attempt)
        return PreparedCommitMessage(
            txn_id,
            batch_id,
            spark_partition,
            digest.rows,
            False,
            prefix,
            producer.producer_id,
            producer.producer_epoch,
        )


def settle(options: SinkOptions, producer: TxnProducer, prefix: str, spark_partition: int) -> bool | None:
    """Ends what an earlier instance left prepared on this id: committed if the driver's
    decision names it, else aborted. None when nothing was open."""
    ongoing_pid, ongoing_epoch = producer.init(two_phase=True, keep_prepared=True)
    if ongoing_pid == NO_PRODUCER_ID:
        return None
    # A decision transaction the driver left open is aborted: undecided.
    TxnProducer(producer.cluster, decision_transactional_id(prefix)).init(
        two_phase=False, timeout_ms=options.transaction_timeout_ms
    )
    decision = read_decision(options, prefix, spark_partition)
    commit = False
    if decision is not None:
        batch_id, pid, epoch = decision
        # Each takeover (KeepPreparedTxn) of the decided transaction bumps its epoch; a later
        # transaction under the same producer id is only prepared once the decided one
        # committed, which its marker shows (read without waiting: the prepared transaction
        # holds a pending marker commit of its own).
        if pid == ongoing_pid and epoch <= ongoing_epoch:
            marker = read_marker(options, prefix, spark_partition, stable=False)
            commit = marker is None or marker.batch_id < batch_id
    log.warning(
        "%s: transaction (%d, %d) left prepared, %s",
        producer.transactional_id,
        ongoing_pid,
        ongoing_epoch,
        "committed as decided" if commit else "aborted (no decision)",
    )
    producer.end(commit)
    return commit


def read_decision(options: SinkOptions, prefix: str, spark_partition: int) -> tuple[int, int, int] | None:
    """(batch id, producer id, epoch) of the last transaction the driver decided to commit for
    a Spark partition."""
    found = read_committed_offset(options, decision_group(prefix), spark_partition)
    if found is None:
        return None
    batch_id, meta = found
    return batch_id, int(meta["producerId"]), int(meta["producerEpoch"])


def record_decision(options: SinkOptions, prefix: str, batch_id: int, prepared: Sequence[PreparedCommitMessage]) -> None:
    """The commit decision, durable before any prepared transaction is committed: one
    transaction of the driver's own id, so it names every partition of the batch or none."""
    with Cluster(options.bootstrap_servers) as cluster:
        producer = TxnProducer(cluster, decision_transactional_id(prefix))
        producer.init(two_phase=False, timeout_ms=options.transaction_timeout_ms)
        offsets = {
            (options.marker_topic, m.spark_partition): (
                batch_id,
                json.dumps({"producerId": m.producer_id, "producerEpoch": m.producer_epoch}),
            )
            for m in prepared
        }
        producer.commit_offsets(decision_group(prefix), offsets)
        producer.end(commit=True)


def commit_batch(options: SinkOptions, batch_id: int, messages: Sequence[WriterCommitMessage | None]) -> None:
    """Driver side: record the decision, then commit every prepared transaction of the batch."""
    prepared = [m for m in messages if isinstance(m, PreparedCommitMessage) and not m.skipped]
    if not prepared:
        return
    maybe_fail(options.inject_failure, "driverCommit", batch_id)
    maybe_fail(options.inject_failure, "pauseInCommit", batch_id)
    maybe_fail(options.inject_failure, "holdInCommit", batch_id)
    record_decision(options, prepared[0].prefix, batch_id, prepared)
    with Cluster(options.bootstrap_servers) as cluster:
        # Every takeover first, then the EndTxns back to back: the partitions of the batch
        # become visible within the shortest window.
        owners = []
        for m in prepared:
            producer = TxnProducer(cluster, m.transactional_id)
            ongoing = producer.init(two_phase=True, keep_prepared=True)
            if ongoing == (m.producer_id, m.producer_epoch):
                owners.append(producer)
                continue
            if ongoing[0] != NO_PRODUCER_ID:
                producer.end(commit=False)  # not the decided transaction
            marker = read_marker(options, m.prefix, m.spark_partition)
            if marker is None or marker.batch_id < batch_id:
                raise RuntimeError(
                    f"{m.transactional_id}: the prepared transaction of batch {batch_id} "
                    f"({m.producer_id}, {m.producer_epoch}) is gone and did not commit"
                )
        for i, producer in enumerate(owners):
            producer.end(commit=True)
            if i == 0:
                maybe_fail(options.inject_failure, "pauseAfterFirstCommit", batch_id)


def abort_batch(options: SinkOptions, prefix: str, messages: Sequence[WriterCommitMessage | None]) -> None:
    """Driver side, when the batch failed: settle every Spark partition's transaction now
    rather than at the replay (rolling forward those the decision names, should the
    failure have come after it)."""
    with Cluster(options.bootstrap_servers) as cluster:
        for spark_partition in range(len(messages)):
            try:
                settle(options, TxnProducer(cluster, transactional_id(prefix, spark_partition)), prefix, spark_partition)
            except Exception as exc:  # the replay settles it anyway
                log.warning("could not settle %s: %s", transactional_id(prefix, spark_partition), exc)
