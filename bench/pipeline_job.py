"""A streaming job run as its own driver process, so that the bench can SIGKILL it.

usage: python -m bench.pipeline_job connector|baseline BOOTSTRAP SOURCE SINK CHECKPOINT
Reads SOURCE through the connector from its checkpoint (or the earliest offsets), in
micro-batches of at most 500 records, and copies key and value to SINK through the
connector's exactly-once sink or a `foreachBatch` with a plain producer (at-least-once);
exits 0 once it has caught up."""

from __future__ import annotations

import sys

import pipeline
from bench.pipeline_baseline import foreach_batch_writer

BATCH_RECORDS = 500


def main(mode: str, bootstrap: str, source: str, sink: str, checkpoint: str) -> None:
    spark = pipeline.local_session(
        app_name=f"odradek-bench-{mode}", master="local[2,2]", conf={"spark.sql.shuffle.partitions": "2"}
    )
    spark.sparkContext.setLogLevel("ERROR")
    stream = (
        spark.readStream.format("odradek")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", source)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", str(BATCH_RECORDS))
        .load()
        .select("key", "value")
        .writeStream.option("checkpointLocation", checkpoint)
    )
    if mode == "connector":
        writer = stream.format("odradek").option("kafka.bootstrap.servers", bootstrap).option("topic", sink)
    else:
        writer = stream.foreachBatch(foreach_batch_writer(bootstrap, sink))
    query = writer.start()
    query.processAllAvailable()
    query.stop()
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
