"""`odradek groups`: list, describe, delete, reset-offsets (Kafka's
kafka-consumer-groups.sh)."""

from __future__ import annotations

import struct
from datetime import UTC, datetime
from typing import Any

from odradek.cli import share_groups
from odradek.cli.client import CliError, Cluster, check
from odradek.cli.offsets import EARLIEST, LATEST, TopicPartition, list_offsets
from odradek.cli.output import Output, table
from protocol.errors import ErrorCode
from protocol.messages.consumer_protocol_assignment import ConsumerProtocolAssignment
from protocol.messages.delete_groups_request import DeleteGroupsRequest
from protocol.messages.describe_groups_request import DescribeGroupsRequest
from protocol.messages.list_groups_request import ListGroupsRequest
from protocol.messages.offset_commit_request import (
    OffsetCommitRequest,
    OffsetCommitRequestPartition,
    OffsetCommitRequestTopic,
)
from protocol.messages.offset_fetch_request import OffsetFetchRequest, OffsetFetchRequestTopic

GROUP_KEY = 0
# Kafka's tool resets only groups nobody consumes in (ConsumerGroupCommand).
INACTIVE_STATES = ("Empty", "Dead")


def list_groups(cluster: Cluster) -> Output:
    cluster.metadata([])
    groups: dict[str, dict[str, Any]] = {}
    for node_id in sorted(cluster.nodes):
        resp = cluster.node(node_id).call(ListGroupsRequest(states_filter=[]), 4)
        check(resp.error_code, "ListGroups")
        for g in resp.groups:
            groups[g.group_id] = {"group": g.group_id, "state": g.group_state, "protocol_type": g.protocol_type}
    data = [groups[k] for k in sorted(groups)]
    return Output(data, ["group", "state", "protocol_type"], data)


def _describe_group(cluster: Cluster, group: str) -> Any:
    resp = cluster.coordinator(group, GROUP_KEY).call(DescribeGroupsRequest(groups=[group]), 5)
    g = resp.groups[0]
    check(g.error_code, f"group {group}", g.error_message)
    return g


def committed_offsets(cluster: Cluster, group: str, topics: list[str] | None = None) -> dict[TopicPartition, int]:
    """The group's committed offsets (of every topic when `topics` is None)."""
    resp = cluster.coordinator(group, GROUP_KEY).call(OffsetFetchRequest(
        group_id=group,
        topics=None if topics is None else [OffsetFetchRequestTopic(name=t, partition_indexes=[]) for t in topics],
    ), 7)
    check(resp.error_code, f"offsets of group {group}")
    out: dict[TopicPartition, int] = {}
    for t in resp.topics:
        for p in t.partitions:
            check(p.error_code, f"offsets of group {group} in {t.name}-{p.partition_index}")
            if p.committed_offset >= 0:
                out[(t.name, p.partition_index)] = p.committed_offset
    return out


def _require_group(g: Any, group: str, offsets: dict[TopicPartition, int]) -> None:
    # A group nobody joined and nobody committed for is unknown, as Kafka's tool says.
    if g.group_state == "Dead" and not offsets:
        raise CliError(f"group {group} does not exist")


def _assignment(protocol_type: str, raw: bytes) -> list[str]:
    """A consumer group member's partitions, from its ConsumerProtocolAssignment (a version
    prefix and the body); other protocols' assignments are opaque."""
    if protocol_type != "consumer" or len(raw) < 2:
        return []
    (version,) = struct.unpack_from(">h", raw)
    try:
        decoded = ConsumerProtocolAssignment.decode(raw[2:], min(max(version, 0), ConsumerProtocolAssignment.MAX_VERSION))
    except ValueError:
        return []
    return sorted(f"{tp.topic}-{p}" for tp in decoded.assigned_partitions for p in tp.partitions)


def describe(cluster: Cluster, group: str) -> Output:
    share = share_groups.describe(cluster, group)
    if share is not None:
        return share
    g = _describe_group(cluster, group)
    offsets = committed_offsets(cluster, group)
    _require_group(g, group, offsets)
    ends = list_offsets(cluster, sorted(offsets), LATEST) if offsets else {}
    partitions = [
        {"topic": t, "partition": p, "current_offset": off, "log_end_offset": ends[(t, p)],
         "lag": max(ends[(t, p)] - off, 0)}
        for (t, p), off in sorted(offsets.items())
    ]
    members = sorted(
        ({"member_id": m.member_id, "client_id": m.client_id, "host": m.client_host,
          "assignment": _assignment(g.protocol_type, m.member_assignment)} for m in g.members),
        key=lambda m: m["member_id"],
    )
    data = {"group": group, "state": g.group_state, "protocol_type": g.protocol_type,
            "members": members, "offsets": partitions}
    rows = [{"group": group, **p} for p in partitions]
    lines = [f"Group {group} is {g.group_state} with {len(members)} member(s)."]
    if rows:
        lines.append(table(["group", "topic", "partition", "current_offset", "log_end_offset", "lag"], rows))
    return Output(data, lines=lines)


def delete(cluster: Cluster, groups: list[str]) -> Output:
    deleted: list[str] = []
    for group in groups:
        resp = cluster.coordinator(group, GROUP_KEY).call(DeleteGroupsRequest(groups_names=[group]), 2)
        r = resp.results[0]
        if r.error_code == ErrorCode.GROUP_ID_NOT_FOUND:
            raise CliError(f"group {group} does not exist")
        if r.error_code == ErrorCode.NON_EMPTY_GROUP:
            raise CliError(f"group {group} is not empty: it has active members")
        check(r.error_code, f"deleting group {group}")
        deleted.append(group)
    return Output({"deleted": deleted}, lines=[f"Deleted group {g}." for g in deleted])


def parse_datetime(text: str) -> int:
    """Milliseconds since the epoch of an ISO 8601 date-time (UTC when it names no zone)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise CliError(f"bad --to-datetime {text!r}: expected e.g. 2024-01-31T12:00:00") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _partitions(cluster: Cluster, group: str, topic_specs: list[str], all_topics: bool,
                committed: dict[TopicPartition, int]) -> list[TopicPartition]:
    if all_topics:
        if not committed:
            raise CliError(f"group {group} has no committed offsets to reset")
        return sorted(committed)
    if not topic_specs:
        raise CliError("name the partitions: --topic TOPIC[:P,P...] or --all-topics")
    wanted: dict[str, list[int] | None] = {}
    for spec in topic_specs:
        topic, sep, parts = spec.partition(":")
        try:
            wanted[topic] = [int(p) for p in parts.split(",")] if sep else None
        except ValueError:
            raise CliError(f"bad --topic {spec!r}: expected TOPIC or TOPIC:0,1") from None
    leaders = cluster.leaders(sorted(wanted))
    out: list[TopicPartition] = []
    for topic, parts_wanted in wanted.items():
        known = leaders[topic]
        for p in parts_wanted if parts_wanted is not None else sorted(known):
            if p not in known:
                raise CliError(f"topic {topic} has no partition {p}")
            out.append((topic, p))
    return sorted(out)


def reset_offsets(cluster: Cluster, group: str, *, topics: list[str], all_topics: bool, to: str,
                  value: str | None, execute: bool, share: bool = False) -> Output:
    if share:
        return _reset_share(cluster, group, topics=topics, all_topics=all_topics, to=to, value=value,
                            execute=execute)
    g = _describe_group(cluster, group)
    if g.group_state not in INACTIVE_STATES:
        raise CliError(f"assignments can only be reset if the group {group} is inactive, "
                       f"but the current state is {g.group_state}")
    committed = committed_offsets(cluster, group)
    partitions = _partitions(cluster, group, topics, all_topics, committed)
    earliest = list_offsets(cluster, partitions, EARLIEST)
    latest = list_offsets(cluster, partitions, LATEST)
    plan: dict[TopicPartition, int] = {}
    if to == "earliest":
        plan = dict(earliest)
    elif to == "latest":
        plan = dict(latest)
    elif to == "datetime":
        found = list_offsets(cluster, partitions, parse_datetime(value or ""))
        # No record that late: the end of the log, as Kafka's tool does.
        plan = {tp: off if off >= 0 else latest[tp] for tp, off in found.items()}
    elif to == "offset":
        try:
            target = int(value or "")
        except ValueError:
            raise CliError(f"bad --to-offset {value!r}") from None
        # Out-of-range targets are moved into the log's range, as Kafka's tool does.
        plan = {tp: min(max(target, earliest[tp]), latest[tp]) for tp in partitions}
    if execute:
        by_topic: dict[str, list[OffsetCommitRequestPartition]] = {}
        for (t, p), off in sorted(plan.items()):
            by_topic.setdefault(t, []).append(OffsetCommitRequestPartition(
                partition_index=p, committed_offset=off, committed_leader_epoch=-1, committed_metadata=""))
        resp = cluster.coordinator(group, GROUP_KEY).call(OffsetCommitRequest(
            group_id=group, generation_id_or_member_epoch=-1, member_id="",
            topics=[OffsetCommitRequestTopic(name=t, partitions=ps) for t, ps in by_topic.items()],
        ), 8)
        for t in resp.topics:
            for p in t.partitions:
                check(p.error_code, f"committing {group}'s offset of {t.name}-{p.partition_index}")
    rows = [{"group": group, "topic": t, "partition": p, "current_offset": committed.get((t, p)),
             "new_offset": off} for (t, p), off in sorted(plan.items())]
    return Output({"group": group, "executed": execute, "offsets": rows},
                  ["group", "topic", "partition", "current_offset", "new_offset"], rows)


def _reset_share(cluster: Cluster, group: str, *, topics: list[str], all_topics: bool, to: str,
                 value: str | None, execute: bool) -> Output:
    """A share group's start offsets, planned as a consumer group's offsets are."""
    current = {(r["topic"], r["partition"]): r["start_offset"] for r in share_groups.start_offsets(cluster, group)} \
        if all_topics else {}
    partitions = _partitions(cluster, group, topics, all_topics, current)
    earliest = list_offsets(cluster, partitions, EARLIEST)
    latest = list_offsets(cluster, partitions, LATEST)
    plan: dict[TopicPartition, int] = {}
    if to == "earliest":
        plan = dict(earliest)
    elif to == "latest":
        plan = dict(latest)
    elif to == "datetime":
        found = list_offsets(cluster, partitions, parse_datetime(value or ""))
        plan = {tp: off if off >= 0 else latest[tp] for tp, off in found.items()}
    elif to == "offset":
        try:
            target = int(value or "")
        except ValueError:
            raise CliError(f"bad --to-offset {value!r}") from None
        plan = {tp: min(max(target, earliest[tp]), latest[tp]) for tp in partitions}
    return share_groups.reset_offsets(cluster, group, plan, execute)
