"""`odradek groups` for share groups (KIP-932), as Kafka's kafka-share-groups.sh: describe
(members, assignments, each share partition's start offset and lag) and reset-offsets (the
start offsets of an empty share group)."""

from __future__ import annotations

from typing import Any

from odradek.cli.client import CliError, Cluster, check
from odradek.cli.output import Output, table
from protocol.errors import ErrorCode
from protocol.messages.alter_share_group_offsets_request import (
    AlterShareGroupOffsetsRequest,
    AlterShareGroupOffsetsRequestPartition,
    AlterShareGroupOffsetsRequestTopic,
)
from protocol.messages.describe_share_group_offsets_request import (
    DescribeShareGroupOffsetsRequest,
    DescribeShareGroupOffsetsRequestGroup,
)
from protocol.messages.share_group_describe_request import ShareGroupDescribeRequest

GROUP_KEY = 0
SHARE_GROUP_DESCRIBE = 77


def _described(cluster: Cluster, group: str) -> Any | None:
    """The share group's ShareGroupDescribe entry; None when it is no share group here."""
    conn = cluster.coordinator(group, GROUP_KEY)
    if SHARE_GROUP_DESCRIBE not in conn.versions:
        return None
    resp = conn.call(ShareGroupDescribeRequest(group_ids=[group]), 1)
    g = resp.groups[0]
    if g.error_code in (ErrorCode.GROUP_ID_NOT_FOUND, ErrorCode.UNSUPPORTED_VERSION):
        return None
    check(g.error_code, f"share group {group}", g.error_message)
    return g


def start_offsets(cluster: Cluster, group: str) -> list[dict[str, Any]]:
    resp = cluster.coordinator(group, GROUP_KEY).call(DescribeShareGroupOffsetsRequest(
        groups=[DescribeShareGroupOffsetsRequestGroup(group_id=group, topics=None)]), 1)
    g = resp.groups[0]
    check(g.error_code, f"start offsets of share group {group}", g.error_message)
    rows = []
    for t in g.topics:
        for p in t.partitions:
            check(p.error_code, f"start offset of {t.topic_name}-{p.partition_index}", p.error_message)
            rows.append({"topic": t.topic_name, "partition": p.partition_index, "start_offset": p.start_offset,
                         "lag": p.lag if p.lag >= 0 else None})
    return sorted(rows, key=lambda r: (r["topic"], r["partition"]))


def describe(cluster: Cluster, group: str) -> Output | None:
    """The share group's description; None when `group` is not a share group."""
    g = _described(cluster, group)
    if g is None:
        return None
    members = sorted(
        ({"member_id": m.member_id, "client_id": m.client_id, "host": m.client_host,
          "assignment": sorted(f"{tp.topic_name}-{p}"
                               for tp in m.assignment.topic_partitions for p in tp.partitions)}
         for m in g.members),
        key=lambda m: m["member_id"],
    )
    offsets = start_offsets(cluster, group)
    data = {"group": group, "type": "share", "state": g.group_state, "group_epoch": g.group_epoch,
            "members": members, "offsets": offsets}
    lines = [f"Share group {group} is {g.group_state} with {len(members)} member(s)."]
    if offsets:
        lines.append(table(["topic", "partition", "start_offset", "lag"], offsets))
    return Output(data, lines=lines)


def reset_offsets(cluster: Cluster, group: str, plan: dict[tuple[str, int], int], execute: bool) -> Output:
    """Move the share group's start offsets to `plan` (with `execute`; a plan otherwise)."""
    g = _described(cluster, group)
    if g is not None and g.group_state != "Empty":
        raise CliError(f"share group {group} can only be reset while it is empty, but it is {g.group_state}")
    current = {(r["topic"], r["partition"]): r["start_offset"] for r in start_offsets(cluster, group)} \
        if g is not None else {}
    if execute:
        by_topic: dict[str, list[AlterShareGroupOffsetsRequestPartition]] = {}
        for (t, p), off in sorted(plan.items()):
            by_topic.setdefault(t, []).append(AlterShareGroupOffsetsRequestPartition(partition_index=p,
                                                                                     start_offset=off))
        resp = cluster.coordinator(group, GROUP_KEY).call(AlterShareGroupOffsetsRequest(
            group_id=group,
            topics=[AlterShareGroupOffsetsRequestTopic(topic_name=t, partitions=ps) for t, ps in by_topic.items()],
        ), 0)
        check(resp.error_code, f"resetting share group {group}", resp.error_message)
        for t in resp.responses:
            for p in t.partitions:
                check(p.error_code, f"resetting {group}'s start offset of {t.topic_name}-{p.partition_index}",
                      p.error_message)
    rows = [{"group": group, "topic": t, "partition": p, "current_offset": current.get((t, p)), "new_offset": off}
            for (t, p), off in sorted(plan.items())]
    return Output({"group": group, "type": "share", "executed": execute, "offsets": rows},
                  ["group", "topic", "partition", "current_offset", "new_offset"], rows)
