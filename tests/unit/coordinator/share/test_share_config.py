from __future__ import annotations

import pytest

from coordinator.share.config import InvalidShareConfigError, SharePartitionConfig


def test_kafka_defaults() -> None:
    c = SharePartitionConfig()
    assert (c.record_lock_duration_ms, c.delivery_count_limit, c.max_in_flight_records) == (30_000, 5, 2_000)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"record_lock_duration_ms": 999}, "group.share.record.lock.duration.ms"),
        ({"record_lock_duration_ms": 3_600_001}, "group.share.record.lock.duration.ms"),
        ({"delivery_count_limit": 1}, "group.share.delivery.count.limit"),
        ({"delivery_count_limit": 11}, "group.share.delivery.count.limit"),
        ({"max_in_flight_records": 99}, "group.share.partition.max.record.locks"),
        ({"max_in_flight_records": 10_001}, "group.share.partition.max.record.locks"),
    ],
)
def test_out_of_range_is_refused(kwargs: dict[str, int], name: str) -> None:
    with pytest.raises(InvalidShareConfigError, match=name):
        SharePartitionConfig(**kwargs)


def test_bounds_are_inclusive() -> None:
    SharePartitionConfig(record_lock_duration_ms=1_000, delivery_count_limit=2, max_in_flight_records=100)
    SharePartitionConfig(record_lock_duration_ms=3_600_000, delivery_count_limit=10, max_in_flight_records=10_000)
