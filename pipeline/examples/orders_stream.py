"""Streaming example: orders in, large and small orders out, exactly once.

usage: python -m pipeline.examples.orders_stream BOOTSTRAP CHECKPOINT
Runs until it has caught up with the `orders` topic, then exits; restarted, it resumes from
its checkpoint."""

from __future__ import annotations

import sys

from pyspark.sql import functions as F

import pipeline

ORDER_SCHEMA = "order_id long, customer string, amount double"
LARGE = 500.0


def main(bootstrap: str, checkpoint: str) -> None:
    spark = pipeline.local_session(app_name="orders-stream", conf={"spark.sql.shuffle.partitions": "2"})
    spark.sparkContext.setLogLevel("ERROR")
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
    main(*sys.argv[1:3])
