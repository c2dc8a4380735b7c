"""Which partitions of its internal topic a coordinator owns, at which leader epoch, and
whether each is loaded yet: the bookkeeping behind Kafka's onElection/onResignation
(CoordinatorRuntime.scheduleLoadOperation / scheduleUnloadOperation), shared by the group
and the transaction coordinators.

A coordinator serves a group or transactional id only while it owns the id's partition
and has loaded it: a partition being loaded answers COORDINATOR_LOAD_IN_PROGRESS, one not
owned NOT_COORDINATOR. Elections and resignations carry the partition's leader epoch; one
older than what this coordinator already saw for the partition is stale and ignored, so
notifications that arrive late or out of order cannot undo a newer one.

A coordinator built for a single broker owns every partition from the start, loading
until its first load (epoch -1 stands for "not loaded yet"); in a cluster it owns none
until elected.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from protocol.errors import ErrorCode

# The epoch of a partition owned from the start and never loaded (single-broker mode).
UNLOADED_EPOCH = -1
# The leader epoch at which a single broker loads every partition.
SINGLE_BROKER_EPOCH = 0


class PartitionStatus(Enum):
    LOADING = "loading"
    ACTIVE = "active"


@dataclass(eq=False, slots=True)
class OwnedPartition:
    """One owned partition; a new object for every load, so work started under one load
    can tell that the partition was resigned (or reloaded) since (`Ownership.holds`)."""

    partition: int
    epoch: int
    status: PartitionStatus = PartitionStatus.LOADING


class Ownership:
    def __init__(self, num_partitions: int, owns_all: bool) -> None:
        self._owned: dict[int, OwnedPartition] = {}
        # The newest epoch seen per partition, by an election or a resignation.
        self._epochs: dict[int, int] = {}
        # In a cluster, whether this broker's membership lease holds
        # (storage/postgres/cluster/node.py `ClusterNode.lease_valid`): once it lapses another
        # broker may lead the partitions, so requests are not answered from memory.
        self.lease: Callable[[], bool] | None = None
        if owns_all:
            for p in range(num_partitions):
                self._owned[p] = OwnedPartition(p, UNLOADED_EPOCH)

    def next_epoch(self, partition: int) -> int:
        """The epoch after the newest seen for the partition (single-broker loads)."""
        return self._epochs.get(partition, UNLOADED_EPOCH) + 1

    def get(self, partition: int) -> OwnedPartition | None:
        return self._owned.get(partition)

    def active(self, partition: int) -> OwnedPartition | None:
        owned = self._owned.get(partition)
        return owned if owned is not None and owned.status is PartitionStatus.ACTIVE else None

    def holds(self, owned: OwnedPartition) -> bool:
        """Whether `owned` is still the partition's current, loaded ownership."""
        return self._owned.get(owned.partition) is owned and owned.status is PartitionStatus.ACTIVE

    def error(self, partition: int) -> ErrorCode | None:
        """None when the partition is owned and loaded, else what a request is answered."""
        owned = self._owned.get(partition)
        if owned is None:
            return ErrorCode.NOT_COORDINATOR
        if owned.status is PartitionStatus.LOADING:
            return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        return None

    def serving_error(self, partition: int) -> ErrorCode | None:
        """What a request for the partition's keys is answered before anything else: `error`,
        or NOT_COORDINATOR while the lease has lapsed (the partition stays owned: a pass
        that renews the lease at the same leader epoch finds the memory still right)."""
        if self.lease is not None and not self.lease():
            return ErrorCode.NOT_COORDINATOR
        return self.error(partition)

    def any_loading(self) -> bool:
        return any(o.status is PartitionStatus.LOADING for o in self._owned.values())

    def partitions(self) -> list[int]:
        return sorted(self._owned)

    def loaded_partitions(self) -> set[int]:
        return {p for p, o in self._owned.items() if o.status is PartitionStatus.ACTIVE}

    def elect(self, partition: int, epoch: int) -> tuple[OwnedPartition | None, OwnedPartition | None]:
        """Take the partition at `epoch`: returns (the ownership to unload first, if any;
        the new ownership to load), or (None, None) for a stale election (an epoch not
        newer than one already seen). An election at a newer epoch of a partition already
        owned reloads it: leadership may have been elsewhere in between."""
        known = self._epochs.get(partition, UNLOADED_EPOCH)
        if epoch <= known:
            return None, None
        self._epochs[partition] = epoch
        previous = self._owned.get(partition)
        owned = OwnedPartition(partition, epoch)
        self._owned[partition] = owned
        return previous, owned

    def resign(self, partition: int, epoch: int | None) -> OwnedPartition | None:
        """Give the partition up: returns the ownership dropped, or None when it was not
        owned or the resignation is stale (`epoch` older than the one it was elected at).
        `epoch` None resigns whatever the epoch (the coordinator stops)."""
        owned = self._owned.get(partition)
        if owned is None:
            return None
        if epoch is not None:
            if epoch < owned.epoch:
                return None
            self._epochs[partition] = max(self._epochs.get(partition, UNLOADED_EPOCH), epoch)
        del self._owned[partition]
        return owned

    def loaded(self, owned: OwnedPartition) -> bool:
        """Mark a load finished; False if the ownership was dropped meanwhile."""
        if self._owned.get(owned.partition) is not owned:
            return False
        owned.status = PartitionStatus.ACTIVE
        return True
