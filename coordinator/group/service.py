"""Building the group coordinator for a broker process over `__consumer_offsets`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from coordinator.group.config import GroupConfig
from coordinator.group.consumer.group import TopicImage
from coordinator.group.coordinator import GroupCoordinator
from coordinator.group.records import OFFSETS_TOPIC
from coordinator.log import StorageCoordinatorLog
from coordinator.settings import Settings

if TYPE_CHECKING:
    from storage.clock import Clock
    from storage.engine import StorageEngine


async def start_group_coordinator(
    config: Settings, clock: Clock, storage: StorageEngine, owns_all_partitions: bool = True
) -> GroupCoordinator:
    """With `owns_all_partitions` (a single broker) it loads all of `__consumer_offsets` in
    the background; otherwise it owns no partition until `on_election`. The topic is
    created on first use."""
    log_store = StorageCoordinatorLog(storage, OFFSETS_TOPIC, config.get_int("offsets.topic.num.partitions"), clock)
    log_store.exists()
    coordinator = GroupCoordinator(log_store, clock, GroupConfig.from_config(config), owns_all_partitions)
    coordinator.rt.topic_names = lambda: {t.topic_id: t.name for t in storage.list_topics()}
    coordinator.rt.topic_images = lambda: {t.name: TopicImage(t.topic_id, t.num_partitions, t.internal)
                                           for t in storage.list_topics()}
    coordinator.start(load=owns_all_partitions)
    return coordinator
