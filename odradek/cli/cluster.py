"""`odradek cluster describe`: the brokers (DescribeCluster, as kafka-cluster.sh and
Kafka's AdminClient.describeCluster), the controller, and how many partition leaders each
broker holds (Metadata of every topic)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from odradek.cli.client import Cluster, check
from odradek.cli.output import Output, table
from protocol.errors import ErrorCode
from protocol.messages.describe_cluster_request import DescribeClusterRequest


def _leader_counts(cluster: Cluster) -> tuple[Counter[int], int, int]:
    """Leaders per broker id over every partition, and the partitions without a leader
    (-1, or a topic answered LEADER_NOT_AVAILABLE); the total partition count."""
    resp = cluster.metadata(None)
    counts: Counter[int] = Counter()
    leaderless = total = 0
    for topic in resp.topics:
        if topic.error_code not in (ErrorCode.NONE, ErrorCode.LEADER_NOT_AVAILABLE):
            continue
        for p in topic.partitions:
            total += 1
            if p.leader_id < 0 or p.error_code == ErrorCode.LEADER_NOT_AVAILABLE:
                leaderless += 1
            else:
                counts[p.leader_id] += 1
    return counts, leaderless, total


def describe(cluster: Cluster) -> Output:
    resp: Any = cluster.any_node().call(DescribeClusterRequest(), 1)
    check(resp.error_code, "DescribeCluster", resp.error_message)
    counts, leaderless, total = _leader_counts(cluster)
    brokers = [
        {
            "id": b.broker_id, "host": b.host, "port": b.port, "rack": b.rack,
            "controller": b.broker_id == resp.controller_id, "leaders": counts.get(b.broker_id, 0),
        }
        for b in sorted(resp.brokers, key=lambda b: b.broker_id)
    ]
    data = {
        "cluster_id": resp.cluster_id,
        "controller_id": resp.controller_id,
        "brokers": brokers,
        "partitions": total,
        "partitions_without_leader": leaderless,
    }
    controller = resp.controller_id if resp.controller_id >= 0 else "none"
    rows = [{"id": b["id"], "address": f"{b['host']}:{b['port']}", "rack": b["rack"],
             "controller": "yes" if b["controller"] else "", "leaders": b["leaders"]} for b in brokers]
    lines = [
        f"Cluster {resp.cluster_id}: {len(brokers)} broker(s), controller {controller}, "
        f"{total} partition(s), {leaderless} without a leader",
        table(["id", "address", "rack", "controller", "leaders"], rows),
    ]
    return Output(data, lines=lines)
