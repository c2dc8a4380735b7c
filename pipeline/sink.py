"""The `odradek` sink: batch and streaming writers (tasks in executors, commit on the driver)."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator, Sequence

import pyarrow as pa
from confluent_kafka import Producer
from pyspark import TaskContext
from pyspark.sql.datasource import DataSourceArrowWriter, DataSourceStreamArrowWriter, WriterCommitMessage

from pipeline.failure_injection import maybe_fail
from pipeline.sink_options import SinkOptions
from pipeline.transactional_write import SinkCommitMessage, transactional_id, write_task
from pipeline.two_phase import abort_batch, commit_batch, prepare_task

log = logging.getLogger(__name__)

# Spark-internal local properties (MicroBatchExecution.BATCH_ID_KEY, StreamExecution.QUERY_ID_KEY):
# write() gets neither the batch id nor the query id as arguments.
BATCH_ID_KEY = "streaming.sql.batchId"
QUERY_ID_KEY = "sql.streaming.queryId"


def _task() -> TaskContext:
    context = TaskContext.get()
    if context is None:
        raise RuntimeError("the odradek sink's write() must run inside a Spark task")
    return context


class BatchWriter(DataSourceArrowWriter):
    """`df.write`: one job is one batch. Its id is fixed on the driver when the job is planned, so
    a retried task finds its own committed marker and skips."""

    def __init__(self, options: SinkOptions) -> None:
        self.options = options
        self.prefix = options.transactional_id_prefix or f"odradek-write-{uuid.uuid4()}"
        # Increases from one job to the next, so a prefix reused by later jobs is never skipped.
        self.batch_id = time.time_ns() // 1000

    def write(self, iterator: Iterator[pa.RecordBatch]) -> SinkCommitMessage:
        task = _task()
        return _write(self.options)(
            self.options, iterator, self.prefix, self.batch_id, task.partitionId(), task.attemptNumber()
        )

    def commit(self, messages: Sequence[WriterCommitMessage | None]) -> None:
        if self.options.transaction_mode == "microBatch":
            commit_batch(self.options, self.batch_id, messages)
        _log_commit(messages, self.batch_id)

    def abort(self, messages: Sequence[WriterCommitMessage | None]) -> None:
        _abort(self.options, self.prefix, messages)


class StreamWriter(DataSourceStreamArrowWriter):
    """`writeStream`: batch ids come from Spark's checkpoint, the default prefix from the query id,
    which the checkpoint keeps across restarts."""

    def __init__(self, options: SinkOptions) -> None:
        self.options = options

    def write(self, iterator: Iterator[pa.RecordBatch]) -> SinkCommitMessage:
        task = _task()
        batch_id = task.getLocalProperty(BATCH_ID_KEY)
        query_id = task.getLocalProperty(QUERY_ID_KEY)
        if batch_id is None or query_id is None:
            raise RuntimeError(
                f"Spark did not set the local properties {BATCH_ID_KEY}/{QUERY_ID_KEY}: this Spark version "
                "is not supported by the odradek sink"
            )
        prefix = self.options.transactional_id_prefix or f"odradek-sink-{query_id}"
        return _write(self.options)(
            self.options, iterator, prefix, int(batch_id), task.partitionId(), task.attemptNumber()
        )

    def commit(self, messages: Sequence[WriterCommitMessage | None], batchId: int) -> None:
        if self.options.transaction_mode == "microBatch":
            commit_batch(self.options, batchId, messages)
        else:
            # Every task already committed its own transaction; the driver only reports.
            maybe_fail(self.options.inject_failure, "pauseInCommit", batchId)
            maybe_fail(self.options.inject_failure, "holdInCommit", batchId)
            maybe_fail(self.options.inject_failure, "driverCommit", batchId)
        _log_commit(messages, batchId)

    def abort(self, messages: Sequence[WriterCommitMessage | None], batchId: int) -> None:
        prefixes = {
            m.transactional_id.rsplit("-", 1)[0] for m in messages if isinstance(m, SinkCommitMessage)
        }
        prefix = self.options.transactional_id_prefix or (prefixes.pop() if len(prefixes) == 1 else None)
        if prefix is not None:
            _abort(self.options, prefix, messages)


def _write(options: SinkOptions) -> Callable[..., SinkCommitMessage]:
    return prepare_task if options.transaction_mode == "microBatch" else write_task


def _abort(options: SinkOptions, prefix: str, messages: Sequence[WriterCommitMessage | None]) -> None:
    if options.transaction_mode == "microBatch":
        abort_batch(options, prefix, messages)
    else:
        fence_failed_tasks(options, prefix, messages)


def fence_failed_tasks(
    options: SinkOptions, prefix: str, messages: Sequence[WriterCommitMessage | None]
) -> None:
    """Abort now, rather than at transaction.timeout.ms, what failed tasks left open: their
    transactions hold the LSO of the output partitions. Messages are in Spark partition order."""
    for spark_partition, message in enumerate(messages):
        if message is not None:
            continue
        try:
            producer = Producer(
                {**options.client_config(), "transactional.id": transactional_id(prefix, spark_partition)}
            )
            producer.init_transactions(30)
        except Exception as exc:  # the next attempt's init_transactions fences it anyway
            log.warning("could not fence %s: %s", transactional_id(prefix, spark_partition), exc)


def _log_commit(messages: Sequence[WriterCommitMessage | None], batch_id: int) -> None:
    done = [m for m in messages if isinstance(m, SinkCommitMessage)]
    log.info(
        "batch %d: %d rows written by %d tasks, %d replayed tasks skipped",
        batch_id,
        sum(m.rows for m in done if not m.skipped),
        sum(not m.skipped for m in done),
        sum(m.skipped for m in done),
    )
