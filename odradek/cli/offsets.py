"""Partition offsets by ListOffsets, asked of each partition's leader."""

from __future__ import annotations

from odradek.cli.client import Cluster, check
from protocol.messages.list_offsets_request import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic

EARLIEST = -2
LATEST = -1

TopicPartition = tuple[str, int]


def list_offsets(cluster: Cluster, partitions: list[TopicPartition], timestamp: int,
                 *, committed: bool = False, version: int = 7) -> dict[TopicPartition, int]:
    """The offset of `timestamp` (EARLIEST, LATEST or milliseconds) of each partition; -1
    where no record is that late. `version`: the ListOffsets version to ask for (v7 knows
    max-timestamp, -3; v8 earliest-local, -4; v9 latest-tiered, -5)."""
    leaders = cluster.leaders(sorted({t for t, _ in partitions}))
    by_leader: dict[int, dict[str, list[int]]] = {}
    for topic, p in partitions:
        by_leader.setdefault(leaders[topic].get(p, -1), {}).setdefault(topic, []).append(p)
    out: dict[TopicPartition, int] = {}
    for leader, topics in by_leader.items():
        resp = cluster.node(leader).call(ListOffsetsRequest(
            replica_id=-1, isolation_level=1 if committed else 0,
            topics=[ListOffsetsTopic(name=t, partitions=[
                ListOffsetsPartition(partition_index=p, current_leader_epoch=-1, timestamp=timestamp) for p in ps
            ]) for t, ps in topics.items()],
        ), version)
        for t in resp.topics:
            for p in t.partitions:
                check(p.error_code, f"offsets of {t.name}-{p.partition_index}")
                out[(t.name, p.partition_index)] = p.offset
    return out
