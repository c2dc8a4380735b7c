"""Building the group coordinator for a broker process over `__consumer_offsets`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coordinator.group.coordinator import OFFSETS_TOPIC, GroupConfig, GroupCoordinator
from coordinator.group.txn_log import StorageOffsetsLog

if TYPE_CHECKING:
    from storage.clock import Clock
    from storage.engine import StorageEngine


async def start_group_coordinator(config: Any, clock: Clock, storage: StorageEngine) -> GroupCoordinator:
    """Loads `__consumer_offsets` in the background; the topic is created on first use."""
    log_store = StorageOffsetsLog(storage, OFFSETS_TOPIC, int(config.get("offsets.topic.num.partitions")))
    log_store.exists()
    coordinator = GroupCoordinator(log_store, clock, GroupConfig.from_config(config))
    coordinator.start()
    return coordinator
