"""The group coordinator's settings, read from the broker's config table (`broker/config.py`
holds every name with Kafka's default)."""

from __future__ import annotations

from dataclasses import dataclass

from coordinator.settings import Settings

# How long a new member's JoinGroup may wait (Kafka's GroupCoordinator.NewMemberJoinTimeoutMs);
# a constant in Kafka, not a setting.
NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000


@dataclass(frozen=True, slots=True)
class GroupConfig:
    min_session_timeout_ms: int
    max_session_timeout_ms: int
    max_size: int
    initial_rebalance_delay_ms: int
    offsets_retention_ms: int
    offsets_retention_check_interval_ms: int
    offset_metadata_max_bytes: int
    new_member_join_timeout_ms: int = NEW_MEMBER_JOIN_TIMEOUT_MS
    # KIP-848 consumer groups.
    consumer_session_timeout_ms: int = 45000
    consumer_heartbeat_interval_ms: int = 5000
    consumer_max_size: int = 2147483647
    consumer_assignors: tuple[str, ...] = ("uniform", "range")
    # group.consumer.migration.policy (Kafka's ConsumerGroupMigrationPolicy).
    migration_policy: str = "bidirectional"

    @property
    def upgrade_enabled(self) -> bool:
        return self.migration_policy in ("upgrade", "bidirectional")

    @property
    def downgrade_enabled(self) -> bool:
        return self.migration_policy in ("downgrade", "bidirectional")

    @classmethod
    def from_config(cls, config: Settings) -> GroupConfig:
        return cls(
            min_session_timeout_ms=config.get_ms("group.min.session.timeout.ms"),
            max_session_timeout_ms=config.get_ms("group.max.session.timeout.ms"),
            max_size=config.get_int("group.max.size"),
            initial_rebalance_delay_ms=config.get_ms("group.initial.rebalance.delay.ms"),
            offsets_retention_ms=config.get_ms("offsets.retention.minutes"),
            offsets_retention_check_interval_ms=config.get_ms("offsets.retention.check.interval.ms"),
            offset_metadata_max_bytes=config.get_int("offset.metadata.max.bytes"),
            consumer_session_timeout_ms=config.get_ms("group.consumer.session.timeout.ms"),
            consumer_heartbeat_interval_ms=config.get_ms("group.consumer.heartbeat.interval.ms"),
            consumer_max_size=config.get_int("group.consumer.max.size"),
            consumer_assignors=tuple(
                a.strip() for a in config.get_str("group.consumer.assignors").split(",") if a.strip()
            ),
            migration_policy=config.get_str("group.consumer.migration.policy"),
        )
