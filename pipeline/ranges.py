"""Offset ranges to read, and how they are cut into Spark input partitions.

The cut depends only on the offsets, so a replayed micro-batch gets the same partitions."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass

from pyspark.sql.datasource import InputPartition

from pipeline.options import TopicPartition


@dataclass(frozen=True)
class OffsetRange(InputPartition):
    """Offsets [start, end) of one Kafka partition: one Spark task."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start


def plan_ranges(
    start: Mapping[TopicPartition, int],
    end: Mapping[TopicPartition, int],
    min_partitions: int | None = None,
    max_records_per_partition: int | None = None,
) -> list[OffsetRange]:
    """Non-empty ranges in topic-partition order, split as `minPartitions` and
    `maxRecordsPerPartition` ask (the options of Spark's Kafka source)."""
    ranges = [
        OffsetRange(t, p, start[(t, p)], end[(t, p)])
        for (t, p) in sorted(end)
        if (t, p) in start and end[(t, p)] > start[(t, p)]
    ]
    if max_records_per_partition:
        ranges = [piece for r in ranges for piece in _split(r, math.ceil(r.size / max_records_per_partition))]
    total = sum(r.size for r in ranges)
    if min_partitions and total and len(ranges) < min_partitions:
        ranges = [
            piece for r in ranges for piece in _split(r, max(1, round(r.size * min_partitions / total)))
        ]
    return ranges


def _split(r: OffsetRange, parts: int) -> list[OffsetRange]:
    parts = max(1, min(parts, r.size))
    bounds = [r.start + (r.size * i) // parts for i in range(parts + 1)]
    return [OffsetRange(r.topic, r.partition, lo, hi) for lo, hi in itertools.pairwise(bounds)]
