"""Building the share coordinator for a broker process over `__share_group_state` (share
partitions) and `__consumer_offsets` (share group membership)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from coordinator.log import StorageCoordinatorLog
from coordinator.settings import Settings
from coordinator.share.coordinator import ShareCoordinator
from coordinator.share.heartbeat import ShareMembershipConfig
from coordinator.share.records import SHARE_GROUP_STATE_TOPIC, TOPIC_CONFIGS

# The group coordinator's topic (coordinator/group/records.py), by name: the share
# coordinator does not depend on the group coordinator.
OFFSETS_TOPIC = "__consumer_offsets"

if TYPE_CHECKING:
    from storage.clock import Clock
    from storage.engine import StorageEngine


async def start_share_coordinator(
    config: Settings, clock: Clock, storage: StorageEngine, owns_all: bool = True
) -> ShareCoordinator:
    """Loads `__share_group_state` before the broker serves (it is small: one snapshot and
    at most `share.coordinator.snapshot.update.records.per.snapshot` updates per share
    partition); the topic is created on the first write. In a cluster (`owns_all` False)
    its partitions are loaded as this broker is elected their leader."""
    state_log = StorageCoordinatorLog(
        storage,
        SHARE_GROUP_STATE_TOPIC,
        config.get_int("share.coordinator.state.topic.num.partitions"),
        clock,
        TOPIC_CONFIGS,
    )
    coordinator = ShareCoordinator(
        state_log,
        clock,
        ShareMembershipConfig(
            session_timeout_ms=config.get_int("group.share.session.timeout.ms"),
            heartbeat_interval_ms=config.get_int("group.share.heartbeat.interval.ms"),
            max_size=config.get_int("group.share.max.size"),
        ),
        config.get_int("share.coordinator.snapshot.update.records.per.snapshot"),
        # Membership records go where Kafka's group coordinator writes them (the group
        # coordinator reads past them).
        membership_log=StorageCoordinatorLog(
            storage, OFFSETS_TOPIC, config.get_int("offsets.topic.num.partitions"), clock
        ),
        topic_names=lambda: {t.topic_id: t.name for t in storage.list_topics()},
        owns_all=owns_all,
    )
    await coordinator.load()
    return coordinator
