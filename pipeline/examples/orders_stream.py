"""Streaming example: orders in, large and small orders out, exactly once.

usage: python -m pipeline.examples.orders_stream BOOTSTRAP CHECKPOINT
           [--master URL] [--py-files ZIP] [--conf KEY=VALUE ...]
Runs until it has caught up with the `orders` topic, then exits; restarted, it resumes from
its checkpoint. `--master spark://...` runs it on a standalone cluster, whose executors get
the connector from `--py-files` (a zip from `python -m pipeline.package`), as with spark-submit."""

from __future__ import annotations

import argparse
import sys

from pyspark.sql import functions as F

import pipeline
from pipeline.standalone import connector_origins

ORDER_SCHEMA = "order_id long, customer string, amount double"
LARGE = 500.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("bootstrap")
    parser.add_argument("checkpoint")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--py-files", default="", help="comma-separated, shipped to the executors")
    parser.add_argument("--conf", action="append", default=[], help="KEY=VALUE, a Spark setting")
    args = parser.parse_args(argv)
    bootstrap, checkpoint = args.bootstrap, args.checkpoint
    conf = {"spark.sql.shuffle.partitions": "2", **dict(c.split("=", 1) for c in args.conf)}
    spark = pipeline.local_session(app_name="orders-stream", master=args.master, conf=conf)
    spark.sparkContext.setLogLevel("ERROR")
    py_files = [f for f in args.py_files.split(",") if f]
    for path in py_files:
        spark.sparkContext.addPyFile(path)
    if py_files:
        print(f"executors import the connector from: {' '.join(connector_origins(spark))}", flush=True)
    orders = (
        spark.readStream.format("odradek")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", "orders")
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", "200")
        .load()
        .select(F.from_json(F.col("value").cast("string"), ORDER_SCHEMA).alias("o"))
        .select("o.*")
    )
    # Deterministic transform: the same input offsets give the same output rows on a replay.
    routed = orders.select(
        F.col("customer").alias("key"),
        F.to_json(F.struct("order_id", "customer", "amount", (F.col("amount") * 1.2).alias("gross"))).alias(
            "value"
        ),
        F.when(F.col("amount") >= LARGE, "orders-large").otherwise("orders-small").alias("topic"),
    )
    query = (
        routed.writeStream.format("odradek")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("checkpointLocation", checkpoint)
        .start()
    )
    query.processAllAvailable()
    query.stop()
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
