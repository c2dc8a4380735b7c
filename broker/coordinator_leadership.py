"""Where a broker learns that it gained or lost the leadership of a partition of
`__consumer_offsets`, `__transaction_state` or `__share_group_state`, and who leads a coordinator's partition
(coordinators follow partition leadership).

`CoordinatorLeadership` is the door the cluster's leadership changes come in by (Kafka's
GroupCoordinator/TransactionCoordinator onElection and onResignation, which its
ReplicaManager calls on each metadata change). It takes every partition's change, so the
caller need not filter: of the other topics, only a resignation matters (the share partitions
of a partition led elsewhere are dropped, as Kafka's SharePartitionManager drops them). Elections and resignations take effect
at once (requests for the partition's groups or transactional ids answer
COORDINATOR_LOAD_IN_PROGRESS, then NOT_COORDINATOR) and return what to await for the load
or unload to be finished. A stale epoch (older than the coordinator saw for the partition)
is ignored.

Who leads a coordinator's partition (FindCoordinator) is the cluster's answer
(`Services.partition_leader`): this broker while there is no cluster.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from coordinator.group.records import OFFSETS_TOPIC
from coordinator.share.records import SHARE_GROUP_STATE_TOPIC
from coordinator.transaction.records import TRANSACTION_STATE_TOPIC

if TYPE_CHECKING:
    from coordinator.group import GroupCoordinator
    from coordinator.share.coordinator import ShareCoordinator
    from coordinator.transaction import TransactionCoordinator

PartitionKey = tuple[uuid.UUID, int]


class CoordinatorLeadership:
    """The coordinators' onElection/onResignation behind one door, by topic name."""

    def __init__(
        self, groups: GroupCoordinator, transactions: TransactionCoordinator, shares: ShareCoordinator | None = None
    ) -> None:
        self.groups = groups
        self.transactions = transactions
        # The share coordinator's state (Kafka's ShareCoordinatorService onElection/onResignation).
        self.shares = shares

    def on_election(self, topic: str, partition: int, leader_epoch: int) -> Awaitable[Any]:
        """This broker became the leader of `topic`-`partition` at `leader_epoch`. For a
        coordinator's partition: its keys answer COORDINATOR_LOAD_IN_PROGRESS from now and
        are served once the awaitable returned ends (the partition loaded; prepared
        transactions are then being completed). `leader_epoch` becomes the coordinator epoch
        of the partition's transaction markers."""
        task: Awaitable[Any] | None = None
        if topic == OFFSETS_TOPIC:
            task = self.groups.on_election(partition, leader_epoch)
        elif topic == TRANSACTION_STATE_TOPIC:
            task = self.transactions.on_election(partition, leader_epoch)
        elif topic == SHARE_GROUP_STATE_TOPIC and self.shares is not None:
            task = self.shares.store.on_election(partition, leader_epoch)
        return task if task is not None else _done()

    def on_resignation(self, topic: str, partition: int, leader_epoch: int | None) -> Awaitable[Any]:
        """This broker no longer leads `topic`-`partition`; `leader_epoch` is the epoch the
        partition's leadership moved to (or the one lost; None: whatever it is, e.g. the
        partition was deleted). Its keys answer NOT_COORDINATOR from now; their timers,
        waiting requests and work in flight are dropped, the awaitable ending once the
        cancelled work has."""
        if topic == OFFSETS_TOPIC:
            self.groups.on_resignation(partition, leader_epoch)
        elif topic == TRANSACTION_STATE_TOPIC:
            unloading = self.transactions.on_resignation(partition, leader_epoch)
            if unloading is not None:
                return unloading
        elif topic == SHARE_GROUP_STATE_TOPIC and self.shares is not None:
            self.shares.store.on_resignation(partition, leader_epoch)
        elif self.shares is not None:
            # A data partition led elsewhere now: its share partitions live there.
            self.shares.forget_partition(topic, partition)
        return _done()


def following(
    leadership: CoordinatorLeadership, topic_name: Callable[[uuid.UUID], str | None]
) -> Callable[[dict[PartitionKey, int], dict[PartitionKey, int]], Awaitable[None]]:
    """A cluster node's leadership listener (storage/postgres/cluster/node.py) that hands
    every partition won or lost to the coordinators: lost first, so that a partition moving
    away and back within one pass is dropped before it is loaded again. The loads run on;
    the coordinators answer COORDINATOR_LOAD_IN_PROGRESS meanwhile."""

    async def follow(won: dict[PartitionKey, int], lost: dict[PartitionKey, int]) -> None:
        for (topic_id, partition), epoch in lost.items():
            name = topic_name(topic_id)
            if name is not None:
                leadership.on_resignation(name, partition, epoch)
        for (topic_id, partition), epoch in won.items():
            name = topic_name(topic_id)
            if name is not None:
                leadership.on_election(name, partition, epoch)

    return follow


def _done() -> asyncio.Future[None]:
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    future.set_result(None)
    return future
