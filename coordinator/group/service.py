"""Building the group coordinator for a broker process over `__consumer_offsets`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coordinator.group.coordinator import OFFSETS_TOPIC, GroupConfig, GroupCoordinator
from coordinator.log import StorageCoordinatorLog

if TYPE_CHECKING:
    from storage.clock import Clock


async def start_group_coordinator(config: Any, clock: Clock, storage: Any) -> GroupCoordinator:
    """Loads `__consumer_offsets` in the background; the topic is created on first use."""
    log_store = StorageCoordinatorLog(storage, OFFSETS_TOPIC, config.get_int("offsets.topic.num.partitions"), clock)
    log_store.exists()
    coordinator = GroupCoordinator(log_store, clock, GroupConfig.from_config(config))
    coordinator.start()
    return coordinator
