"""The group coordinator backed by `__consumer_offsets`: classic groups, consumer groups
(KIP-848), and groups of both protocols at once."""

from coordinator.group.config import GroupConfig
from coordinator.group.coordinator import GroupCoordinator
from coordinator.group.states import GroupState

__all__ = ["GroupConfig", "GroupCoordinator", "GroupState"]
