"""A streaming job run as its own driver process, so that tests can SIGKILL it.

usage: python -m tests.integration.pipeline.stream_job BOOTSTRAP SOURCE SINK CHECKPOINT [INJECT_FAILURE [TRANSACTION_MODE]]
Reads SOURCE from its checkpoint (or the earliest offsets), prefixes every value with `out-`,
writes to SINK through the exactly-once sink, and exits 0 once it has caught up."""

from __future__ import annotations

import sys

import pipeline
from tests.integration.pipeline.query_start import caught_up


def main(bootstrap: str, source: str, sink: str, checkpoint: str, inject: str = "", mode: str = "task") -> None:
    spark = pipeline.local_session(
        app_name="odradek-stream-job", master="local[2,2]", conf={"spark.sql.shuffle.partitions": "2"}
    )
    spark.sparkContext.setLogLevel("ERROR")
    writer = (
        spark.readStream.format("odradek")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", source)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", "40")
        .load()
        .selectExpr("key", "concat('out-', cast(value AS string)) AS value")
        .writeStream.format("odradek")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", sink)
        .option("checkpointLocation", checkpoint)
        .option("transactionMode", mode)
    )
    if inject:
        writer = writer.option("odradek.test.injectFailure", inject)
    query = caught_up(writer.start)
    query.stop()
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
