"""The controller's one job: leaders for every partition over the live brokers
(assignment.py), written with their epochs bumped in one SQL transaction and announced by
NOTIFY. Whoever holds the controller lock (membership.py) runs it, at every heartbeat
and whenever a broker or a topic comes or goes.

The UPDATE of a partition's row waits for the FOR SHARE lock of every round in flight
writing that partition (leadership.py), so once it commits the old leader can commit
nothing more there: its next round finds another epoch and fails.
"""

from __future__ import annotations

import asyncpg

from .assignment import PartitionKey, assign
from .membership import LockSpaces, live_brokers
from .notify import CLUSTER_CHANNEL

# A round stuck behind a dead connection must not stall the controller for long; the next
# pass tries again (the stuck sessions are ended after the session timeout).
LOCK_TIMEOUT = "2s"

_PARTITIONS = """
SELECT t.topic_id, g.p AS partition FROM topics t, generate_series(0, t.num_partitions - 1) AS g(p)
"""

_UPSERT = """
INSERT INTO partition_leaders (topic_id, partition, leader_id, leader_epoch)
SELECT u.topic_id, u.partition, u.leader_id, 0
FROM unnest($1::uuid[], $2::integer[], $3::integer[]) AS u(topic_id, partition, leader_id)
ORDER BY u.topic_id, u.partition
ON CONFLICT (topic_id, partition) DO UPDATE SET leader_id = excluded.leader_id,
    leader_epoch = partition_leaders.leader_epoch + 1
"""


async def elect(conn: asyncpg.Connection, spaces: LockSpaces) -> int:
    """One pass of the controller; returns how many partitions changed leader."""
    async with conn.transaction():
        await conn.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
        brokers = await live_brokers(conn, spaces)
        partitions: list[PartitionKey] = [(r["topic_id"], r["partition"]) for r in await conn.fetch(_PARTITIONS)]
        current: dict[PartitionKey, int | None] = {
            (r["topic_id"], r["partition"]): r["leader_id"]
            for r in await conn.fetch("SELECT topic_id, partition, leader_id FROM partition_leaders")
        }
        chosen = assign(partitions, current, [b.node_id for b in brokers], {b.node_id: b.rack for b in brokers})
        changed = sorted(k for k, leader in chosen.items() if k not in current or current[k] != leader)
        wanted = set(chosen)
        gone = [k for k in current if k not in wanted]
        if changed:
            await conn.execute(
                _UPSERT, [k[0] for k in changed], [k[1] for k in changed], [chosen[k] for k in changed]
            )
        if gone:
            await conn.execute(
                "DELETE FROM partition_leaders l USING unnest($1::uuid[], $2::integer[]) AS u(topic_id, partition) "
                "WHERE l.topic_id = u.topic_id AND l.partition = u.partition",
                [k[0] for k in gone], [k[1] for k in gone],
            )
        if changed or gone:
            await conn.execute("SELECT pg_notify($1, 'leaders')", CLUSTER_CHANNEL)
    return len(changed)
