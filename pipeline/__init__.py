"""Exactly-once PySpark connector for Kafka-compatible brokers (the `odradek` data source).

Speaks only the Kafka protocol through confluent-kafka, so it works against any Kafka."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.session import JavaMissingError, local_session

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["JavaMissingError", "local_session", "register"]


def register(spark: SparkSession) -> None:
    """Make `format("odradek")` available to `spark.read`, `readStream`, `write` and `writeStream`."""
    from pipeline.datasource import register as _register

    _register(spark)
