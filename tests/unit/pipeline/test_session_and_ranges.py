"""Pure parts of the connector: the java check, option parsing, range planning, rate limiting."""

from __future__ import annotations

import pyarrow as pa
import pytest

from pipeline.markers import RowDigest
from pipeline.options import OptionError, parse_source_options
from pipeline.ranges import OffsetRange, plan_ranges
from pipeline.session import JavaMissingError, find_java
from pipeline.sink_options import parse_sink_options
from pipeline.source import rate_limit
from pipeline.transactional_write import rows_of


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


def test_row_digest_ignores_order_but_not_content_or_multiplicity() -> None:
    rows = [("t", -1, b"k1", b"v1", []), ("t", 0, None, b"v2", [("h", b"x")]), ("u", -1, b"k3", b"v3", [])]

    def digest(
        items: list[tuple[str, int, bytes | None, bytes | None, list[tuple[str, bytes]]]],
    ) -> tuple[int, str]:
        d = RowDigest()
        for row in items:
            d.add(*row)
        return d.rows, d.hexdigest()

    assert digest(rows) == digest(list(reversed(rows)))
    assert digest(rows) != digest([*rows, rows[0]])
    assert digest(rows) != digest([*rows[:2], ("u", -1, b"k3", b"v4", [])])
    assert digest(rows) != digest([*rows[:2], ("u", 1, b"k3", b"v3", [])])


def test_sink_rows_take_the_topic_option_over_the_column() -> None:
    batch = pa.RecordBatch.from_pydict(
        {"key": ["a", None], "value": [b"1", b"2"], "topic": ["x", "y"], "partition": [1, None]}
    )
    assert list(rows_of(batch, None)) == [("x", 1, b"a", b"1", []), ("y", -1, None, b"2", [])]
    assert [r[0] for r in rows_of(batch, "z")] == ["z", "z"]


def test_sink_transaction_mode_option() -> None:
    base = {"kafka.bootstrap.servers": "h:1", "topic": "t"}
    assert parse_sink_options(base).transaction_mode == "task"
    assert parse_sink_options({**base, "transactionmode": "microbatch"}).transaction_mode == "microBatch"
    with pytest.raises(OptionError, match="'transactionMode' must be one of task, microBatch, not 'batch'"):
        parse_sink_options({**base, "transactionmode": "batch"})
    with pytest.raises(OptionError, match=r"only kafka\.security\.protocol PLAINTEXT"):
        parse_sink_options({**base, "transactionmode": "microBatch", "kafka.security.protocol": "SASL_SSL"})
