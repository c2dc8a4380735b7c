"""Pure parts of the connector: the java check, option parsing, range planning, rate limiting."""

from __future__ import annotations

import pytest

from pipeline.options import OptionError, parse_source_options
from pipeline.ranges import OffsetRange, plan_ranges
from pipeline.session import JavaMissingError, find_java
from pipeline.source import rate_limit


def test_missing_java_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(JavaMissingError, match="no `java` on PATH"):
        find_java()
    monkeypatch.setenv("JAVA_HOME", "/nonexistent")
    with pytest.raises(JavaMissingError, match="JAVA_HOME"):
        find_java()


def test_offsets_json_in_spark_kafka_shape() -> None:
    opts = parse_source_options(
        {
            "kafka.bootstrap.servers": "h:1",
            "subscribe": "a,b",
            "startingoffsets": '{"a":{"0":23,"1":-2},"b":{"0":-1}}',
            "kafka.fetch.max.bytes": "1000",
        },
        streaming=True,
    )
    assert opts.starting == {("a", 0): 23, ("a", 1): -2, ("b", 0): -1}
    assert opts.subscription.topics == ("a", "b")
    assert opts.consumer_config() == {"fetch.max.bytes": "1000", "bootstrap.servers": "h:1"}
    with pytest.raises(OptionError, match="'endingOffsets'"):
        parse_source_options(
            {"kafka.bootstrap.servers": "h:1", "subscribe": "a", "endingoffsets": "latest"}, streaming=True
        )
    with pytest.raises(OptionError, match="'maxOffsetsPerTrigger'"):
        parse_source_options(
            {"kafka.bootstrap.servers": "h:1", "subscribe": "a", "maxoffsetspertrigger": "0"}, streaming=True
        )


def test_plan_ranges_splits_and_skips_empty() -> None:
    start = {("t", 0): 0, ("t", 1): 5, ("t", 2): 7}
    end = {("t", 0): 10, ("t", 1): 5, ("t", 2): 9}
    assert plan_ranges(start, end) == [OffsetRange("t", 0, 0, 10), OffsetRange("t", 2, 7, 9)]
    assert plan_ranges(start, end, max_records_per_partition=4) == [
        OffsetRange("t", 0, 0, 3),
        OffsetRange("t", 0, 3, 6),
        OffsetRange("t", 0, 6, 10),
        OffsetRange("t", 2, 7, 9),
    ]
    pieces = plan_ranges(start, end, min_partitions=6)
    assert len(pieces) >= 6
    assert sum(p.size for p in pieces) == 12


def test_rate_limit_shares_in_proportion() -> None:
    start = {("t", 0): 0, ("t", 1): 100}
    latest = {("t", 0): 30, ("t", 1): 110}
    assert rate_limit(start, latest, 100) == latest
    assert rate_limit(start, latest, 20) == {("t", 0): 15, ("t", 1): 105}
