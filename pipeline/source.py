"""The `odradek` source: batch and streaming readers planned on the driver, read on executors."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows

from pipeline.metadata import ClusterView, resolve
from pipeline.options import OptionError, SourceOptions, TopicPartition
from pipeline.ranges import OffsetRange, plan_ranges
from pipeline.reading import DataLossError, read_range

log = logging.getLogger(__name__)

# Spark's checkpoint keeps offsets as JSON: {"topic": {"0": 23}}, as its Kafka source does.
OffsetJson = dict[str, dict[str, int]]


def to_json(offsets: Mapping[TopicPartition, int]) -> OffsetJson:
    out: OffsetJson = {}
    for (topic, partition), offset in sorted(offsets.items()):
        out.setdefault(topic, {})[str(partition)] = offset
    return out


def from_json(offsets: Mapping[str, Mapping[str, int]]) -> dict[TopicPartition, int]:
    return {(topic, int(p)): int(o) for topic, parts in offsets.items() for p, o in parts.items()}


class BatchReader(DataSourceReader):
    def __init__(self, options: SourceOptions) -> None:
        self.options = options

    def partitions(self) -> Sequence[InputPartition]:
        opts = self.options
        view = ClusterView(opts.consumer_config())
        tps = view.partitions(opts.subscription)
        earliest = view.earliest(tps)
        latest = view.latest_stable(tps)
        start = resolve(opts.starting, tps, earliest, latest, "startingOffsets")
        end = resolve(opts.ending, tps, earliest, latest, "endingOffsets")
        for tp in tps:
            if end[tp] > latest[tp]:
                # Past the LSO the range could still change (open transactions): never plan it.
                raise OptionError(
                    f"option 'endingOffsets': {tp} is beyond the last stable offset {latest[tp]}"
                )
            if start[tp] > end[tp]:
                raise OptionError(
                    f"option 'startingOffsets': {tp} starts at {start[tp]}, after its end {end[tp]}"
                )
            start[tp] = check_lost(opts, tp, start[tp], earliest[tp], end[tp])
        return plan_ranges(start, end, opts.min_partitions, opts.max_records_per_partition)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, OffsetRange)
        return read_range(self.options, partition)


def check_lost(opts: SourceOptions, tp: TopicPartition, start: int, earliest: int, end: int) -> int:
    """Where reading of `tp` starts when `start` may already be deleted."""
    if start >= earliest:
        return start
    message = f"offsets [{start}, {earliest}) of {tp[0]}-{tp[1]} were deleted (log start offset {earliest})"
    if opts.fail_on_data_loss:
        raise DataLossError(message + "; set failOnDataLoss=false to skip lost data")
    log.warning("%s; skipped because failOnDataLoss=false", message)
    return min(earliest, end)


class StreamReader(DataSourceStreamReader):
    """Offsets live only in Spark's checkpoint; each micro-batch reads up to the LSO it saw."""

    def __init__(self, options: SourceOptions) -> None:
        self.options = options
        self._view: ClusterView | None = None

    def __getstate__(self) -> dict[str, Any]:
        # The admin client stays on the driver; executors only need the options.
        return {"options": self.options, "_view": None}

    @property
    def view(self) -> ClusterView:
        if self._view is None:
            self._view = ClusterView(self.options.consumer_config())
        return self._view

    def initialOffset(self) -> OffsetJson:
        opts = self.options
        tps = self.view.partitions(opts.subscription)
        earliest = self.view.earliest(tps)
        latest = self.view.latest_stable(tps)
        return to_json(resolve(opts.starting, tps, earliest, latest, "startingOffsets"))

    def getDefaultReadLimit(self) -> ReadLimit:
        if self.options.max_offsets_per_trigger:
            return ReadMaxRows(self.options.max_offsets_per_trigger)
        return ReadAllAvailable()

    def latestOffset(self, start: OffsetJson, limit: ReadLimit) -> OffsetJson:
        begin = from_json(start)
        tps = self.view.partitions(self.options.subscription)
        latest = self.view.latest_stable(tps)
        for tp in begin.keys() - set(tps):
            self._lost(f"{tp[0]}-{tp[1]} disappeared (topic deleted?)")
        # Partitions added while the query runs are read from their beginning.
        current = {tp: begin.get(tp, 0) for tp in tps}
        for tp, offset in current.items():
            if latest[tp] < offset:
                self._lost(
                    f"{tp[0]}-{tp[1]} went back from offset {offset} to {latest[tp]} (topic recreated?)"
                )
                current[tp] = latest[tp]
        end = dict(latest)
        if isinstance(limit, ReadMaxRows):
            end = rate_limit(current, latest, limit.max_rows)
        return to_json(end)

    def partitions(self, start: OffsetJson, end: OffsetJson) -> Sequence[InputPartition]:
        begin = from_json(start)
        stop = from_json(end)
        # A partition new in `end` starts at 0: the plan depends only on the checkpointed offsets,
        # so a replay reads the same ranges (deleted offsets are data loss, found while reading).
        first = {tp: min(begin.get(tp, 0), stop[tp]) for tp in stop}
        return plan_ranges(first, stop, self.options.min_partitions, self.options.max_records_per_partition)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, OffsetRange)
        return read_range(self.options, partition)

    def commit(self, end: OffsetJson) -> None:
        """Nothing to do: Spark's checkpoint is the only offset store."""

    def _lost(self, message: str) -> None:
        if self.options.fail_on_data_loss:
            raise DataLossError(message + "; set failOnDataLoss=false to go on")
        log.warning("%s; going on because failOnDataLoss=false", message)


def rate_limit(
    start: Mapping[TopicPartition, int], latest: Mapping[TopicPartition, int], max_offsets: int
) -> dict[TopicPartition, int]:
    """At most `max_offsets` offsets in all, shared in proportion to what each partition has
    (as `maxOffsetsPerTrigger` does in Spark's Kafka source), at least one where data waits."""
    available = {tp: max(0, latest[tp] - start[tp]) for tp in latest}
    total = sum(available.values())
    if total <= max_offsets:
        return dict(latest)
    end: dict[TopicPartition, int] = {}
    budget = max_offsets
    for tp in sorted(available):
        share = min(available[tp], max(1 if available[tp] else 0, available[tp] * max_offsets // total))
        share = min(share, budget)
        budget -= share
        end[tp] = start[tp] + share
    return end
