"""Batch example: spark.read of the committed orders, totals per customer, df.write."""

from __future__ import annotations

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from pipeline.examples.orders_stream import ORDER_SCHEMA


def customer_totals(spark: SparkSession, bootstrap: str, topic: str = "customer-totals") -> int:
    """Writes one record per customer (key customer, value the total amount); returns the count."""
    totals = (
        spark.read.format("odradek")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", "orders")
        .load()
        .select(F.from_json(F.col("value").cast("string"), ORDER_SCHEMA).alias("o"))
        .groupBy("o.customer")
        .agg(F.round(F.sum("o.amount"), 2).alias("total"))
        .select(F.col("customer").alias("key"), F.col("total").cast("string").alias("value"))
        .cache()
    )
    totals.write.format("odradek").option("kafka.bootstrap.servers", bootstrap).option("topic", topic).mode(
        "append"
    ).save()
    return totals.count()
