"""The share-partition limits of a share group: Kafka's `group.share.*` broker settings, their
defaults and the ranges Kafka's `ShareGroupConfig` accepts."""

from __future__ import annotations

from dataclasses import dataclass

RECORD_LOCK_DURATION_MS = "group.share.record.lock.duration.ms"
DELIVERY_COUNT_LIMIT = "group.share.delivery.count.limit"
PARTITION_MAX_RECORD_LOCKS = "group.share.partition.max.record.locks"

DEFAULT_RECORD_LOCK_DURATION_MS = 30_000
DEFAULT_DELIVERY_COUNT_LIMIT = 5
DEFAULT_PARTITION_MAX_RECORD_LOCKS = 2_000

# Inclusive ranges of ShareGroupConfig's `between(...)` validators.
LIMITS: dict[str, tuple[int, int]] = {
    RECORD_LOCK_DURATION_MS: (1_000, 3_600_000),
    DELIVERY_COUNT_LIMIT: (2, 10),
    PARTITION_MAX_RECORD_LOCKS: (100, 10_000),
}


class InvalidShareConfigError(ValueError):
    pass


@dataclass(frozen=True)
class SharePartitionConfig:
    record_lock_duration_ms: int = DEFAULT_RECORD_LOCK_DURATION_MS
    delivery_count_limit: int = DEFAULT_DELIVERY_COUNT_LIMIT
    max_in_flight_records: int = DEFAULT_PARTITION_MAX_RECORD_LOCKS

    def __post_init__(self) -> None:
        for name, value in (
            (RECORD_LOCK_DURATION_MS, self.record_lock_duration_ms),
            (DELIVERY_COUNT_LIMIT, self.delivery_count_limit),
            (PARTITION_MAX_RECORD_LOCKS, self.max_in_flight_records),
        ):
            lo, hi = LIMITS[name]
            if not lo <= value <= hi:
                raise InvalidShareConfigError(f"{name}={value} is outside [{lo}, {hi}]")
