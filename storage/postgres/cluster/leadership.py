"""What one broker knows of partition leadership, and the fence its rounds pass.

`leaders` is the controller's table as last read (partition_leaders); `serving` the
partitions this broker leads and has loaded, with the epoch it loaded them at. Only those
take appends, reads and offset lookups (Kafka's Partition.checkCurrentLeaderEpoch and
ReplicaManager.getPartitionOrError), and every round writing a partition checks, inside its
SQL transaction, that the epoch its batches were written under is still the one served and
the table's (`fence`): a row lock the controller's epoch bump waits for, so a broker that
lost a partition while paused can never append after its successor started, even once it
leads the partition again.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Collection, Mapping

import asyncpg

from protocol.errors import ErrorCode
from storage.errors import KafkaStorageError

PartitionKey = tuple[uuid.UUID, int]

# current_leader_epoch absent (Kafka's RecordBatch.NO_PARTITION_LEADER_EPOCH).
NO_EPOCH = -1

# Rows locked in key order, as the controller updates them (controller._UPSERT): no deadlock.
_LOCK_LEADERS = """
SELECT l.topic_id, l.partition, l.leader_id, l.leader_epoch
FROM partition_leaders l JOIN unnest($1::uuid[], $2::integer[]) AS u(topic_id, partition)
    USING (topic_id, partition)
ORDER BY l.topic_id, l.partition
FOR SHARE OF l
"""


class FencedError(KafkaStorageError):
    """A round wrote partitions this broker no longer leads at the epoch it served."""

    def __init__(self, partitions: Collection[PartitionKey], message: str | None = None) -> None:
        super().__init__(message or f"fenced: no longer the leader of {len(partitions)} partition(s)")
        self.partitions = set(partitions)


def fenced(
    node_id: int, expected: Mapping[PartitionKey, int | None], found: Mapping[PartitionKey, tuple[int | None, int]]
) -> set[PartitionKey]:
    """The partitions of a round that must not commit: not served (expected None), or
    whose row names another leader or another epoch (or is gone)."""
    out: set[PartitionKey] = set()
    for key, epoch in expected.items():
        row = found.get(key)
        if epoch is None or row is None or row != (node_id, epoch):
            out.add(key)
    return out


class Leadership:
    def __init__(self, node_id: int) -> None:
        self.node_id = node_id
        self.leaders: dict[PartitionKey, tuple[int | None, int]] = {}
        self.serving: dict[PartitionKey, int] = {}
        # Of each partition served: its leader epochs and their start offsets, ascending.
        self.epochs: dict[PartitionKey, list[tuple[int, int]]] = {}
        # Told of partitions a round found fenced (the engine drops their unwritten batches).
        self.on_fenced: Callable[[set[PartitionKey]], None] = lambda keys: None
        # Partitions a round found fenced, with the epoch they were served at, that the
        # leadership's listeners (the coordinators' onResignation) have not heard of yet:
        # no longer in `serving`, a pass would not see them lost, and a coordinator would
        # serve on from the memory of a partition another broker leads (ClusterNode._apply
        # takes them). `on_lost` wakes the node to tell them at once.
        self.fenced_served: dict[PartitionKey, int] = {}
        self.on_lost: Callable[[], None] = lambda: None
        # Whether the broker's membership lease holds (node.py `ClusterNode.lease_valid`):
        # once it lapses another broker may lead what `serving` still lists.
        self.lease: Callable[[], bool] = lambda: True

    def leader_of(self, key: PartitionKey) -> tuple[int | None, int]:
        """(leader node id or None, leader epoch)."""
        return self.leaders.get(key, (None, 0))

    def served_epoch(self, key: PartitionKey) -> int:
        """The epoch appends to a served partition are stamped with."""
        return self.serving.get(key, 0)

    def check(self, key: PartitionKey, current_leader_epoch: int = NO_EPOCH) -> ErrorCode:
        """Kafka's Partition.checkCurrentLeaderEpoch, then leadership: whether this broker
        may serve the partition to a request naming `current_leader_epoch`."""
        serving = self.serving.get(key)
        if serving is None or not self.lease():
            return ErrorCode.NOT_LEADER_OR_FOLLOWER
        if current_leader_epoch != NO_EPOCH:
            if current_leader_epoch < serving:
                return ErrorCode.FENCED_LEADER_EPOCH
            if current_leader_epoch > serving:
                return ErrorCode.UNKNOWN_LEADER_EPOCH
        return ErrorCode.NONE

    def fence(self, keys: Collection[PartitionKey]) -> Callable[[asyncpg.Connection], Awaitable[None]]:
        """As a round takes its batches: the check its transaction runs before writing them,
        which locks the rows of their partitions FOR SHARE and fails the round if any is no
        longer this broker's at the epoch served now, when the batches were written, or no
        longer served here at that epoch. Not only at the epoch served once the round runs:
        a round that took a partition's batches, then waited (for a connection, for a row
        lock) while the partition was lost and won back at a newer epoch, holds batches of a
        log that was dropped, at offsets the reloaded log hands out again; it must fail, not
        pass against the newer epoch."""
        expected = {key: self.serving.get(key) for key in sorted(keys)}

        async def check(conn: asyncpg.Connection) -> None:
            await self._check(conn, expected)

        return check

    async def _check(self, conn: asyncpg.Connection, expected: Mapping[PartitionKey, int | None]) -> None:
        found = {
            (r["topic_id"], r["partition"]): (r["leader_id"], r["leader_epoch"])
            for r in await conn.fetch(_LOCK_LEADERS, [k[0] for k in expected], [k[1] for k in expected])
        }
        bad = fenced(self.node_id, expected, found)
        # Released meanwhile (their batches dropped, never to be acknowledged), or served
        # at another epoch since.
        bad.update(key for key, epoch in expected.items() if self.serving.get(key) != epoch)
        if not bad:
            return
        # Lost here: the partitions still served at the epoch the round wrote at. One served
        # at another epoch since (lost and won back meanwhile) stays served: the round is
        # stale, not its log.
        lost = set()
        for key in bad:
            epoch = expected[key]
            if epoch is not None and self.serving.get(key) == epoch:
                del self.serving[key]
                self.fenced_served[key] = epoch
                lost.add(key)
        if lost:
            self.on_fenced(lost)
            self.on_lost()
        raise FencedError(bad)

    def take_fenced(self) -> dict[PartitionKey, int]:
        """The partitions found fenced since the last call, with the epoch served."""
        fenced_served, self.fenced_served = self.fenced_served, {}
        return fenced_served
