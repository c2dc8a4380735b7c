"""The group coordinator backed by `__consumer_offsets`: classic groups (JoinGroup/SyncGroup)
and KIP-848 consumer groups (ConsumerGroupHeartbeat), their committed offsets, and the
conversion between the two protocols."""

from coordinator.group.classic.states import GroupState
from coordinator.group.config import GroupConfig
from coordinator.group.coordinator import GroupCoordinator

__all__ = ["GroupConfig", "GroupCoordinator", "GroupState"]
