"""The classic consumer group coordinator backed by `__consumer_offsets`."""

from coordinator.group.config import GroupConfig
from coordinator.group.coordinator import GroupCoordinator
from coordinator.group.states import GroupState

__all__ = ["GroupConfig", "GroupCoordinator", "GroupState"]
