"""Where a broker learns that it gained or lost the leadership of a partition of
`__consumer_offsets` or `__transaction_state`, and who leads a coordinator's partition
(issue 26, item 5: coordinators follow partition leadership).

`CoordinatorLeadership` is the door the cluster's leadership changes come in by (Kafka's
GroupCoordinator/TransactionCoordinator onElection and onResignation, which its
ReplicaManager calls on each metadata change). It takes every partition's change: the other
topics' are ignored, so the caller need not filter. Elections and resignations take effect
at once (requests for the partition's groups or transactional ids answer
COORDINATOR_LOAD_IN_PROGRESS, then NOT_COORDINATOR) and return what to await for the load
or unload to be finished. A stale epoch (older than the coordinator saw for the partition)
is ignored.

`SingleBrokerLeaders` answers FindCoordinator while there is one broker: it leads every
partition. A cluster puts its own `PartitionLeaders` in `Services.partition_leaders`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from coordinator.group.records import OFFSETS_TOPIC
from coordinator.transaction.records import TRANSACTION_STATE_TOPIC

if TYPE_CHECKING:
    from broker.config import Listener
    from coordinator.group import GroupCoordinator
    from coordinator.transaction import TransactionCoordinator


@dataclass(frozen=True, slots=True)
class LeaderEndpoint:
    """A partition leader as a client on one listener reaches it."""

    node_id: int
    host: str
    port: int


class SingleBrokerLeaders:
    """One broker leads every partition: this one, at the address of the listener asked on."""

    def __init__(self, node_id: int, advertised_listener: Callable[[str], Listener]) -> None:
        self._node_id = node_id
        self._advertised_listener = advertised_listener

    def leader_endpoint(self, topic: str, partition: int, listener_name: str) -> LeaderEndpoint | None:
        listener = self._advertised_listener(listener_name)
        return LeaderEndpoint(self._node_id, listener.host, listener.port)


class CoordinatorLeadership:
    """The two coordinators' onElection/onResignation behind one door, by topic name."""

    def __init__(self, groups: GroupCoordinator, transactions: TransactionCoordinator) -> None:
        self.groups = groups
        self.transactions = transactions

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
        return _done()


def _done() -> asyncio.Future[None]:
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    future.set_result(None)
    return future
