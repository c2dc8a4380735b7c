"""Applying a consumer group record to the groups (Kafka's GroupMetadataManager.replay for
the KIP-848 records): the one way a consumer group changes, on load and while serving
alike (`GroupRuntime.write` replays a write's records once they are durable).

Records may come in any order a compacted log leaves them in: a group or member is created
by the first record that names it; `LoadCheck` drops, once a load is over, what no epoch
or metadata record stood for."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from coordinator.group.consumer.assignors import Partition
from coordinator.group.consumer.group import (
    STATIC_LEAVE_EPOCH,
    ClassicMetadata,
    ConsumerGroup,
    ConsumerMember,
)
from coordinator.group.consumer.reconciliation import MemberAssignment, MemberState
from coordinator.group.consumer.records import (
    CURRENT_ASSIGNMENT,
    GROUP_EPOCH,
    MEMBER_METADATA,
    STATES,
    TARGET_EPOCH,
    TARGET_MEMBER,
)
from protocol.messages.consumer_group_current_member_assignment_key import (
    ConsumerGroupCurrentMemberAssignmentKey,
)
from protocol.messages.consumer_group_current_member_assignment_value import (
    ConsumerGroupCurrentMemberAssignmentValue,
)
from protocol.messages.consumer_group_current_member_assignment_value import TopicPartitions as CurrentTopic
from protocol.messages.consumer_group_member_metadata_key import ConsumerGroupMemberMetadataKey
from protocol.messages.consumer_group_member_metadata_value import ConsumerGroupMemberMetadataValue
from protocol.messages.consumer_group_metadata_key import ConsumerGroupMetadataKey
from protocol.messages.consumer_group_metadata_value import ConsumerGroupMetadataValue
from protocol.messages.consumer_group_target_assignment_member_key import (
    ConsumerGroupTargetAssignmentMemberKey,
)
from protocol.messages.consumer_group_target_assignment_member_value import (
    ConsumerGroupTargetAssignmentMemberValue,
    TopicPartition,
)
from protocol.messages.consumer_group_target_assignment_metadata_key import (
    ConsumerGroupTargetAssignmentMetadataKey,
)
from protocol.messages.consumer_group_target_assignment_metadata_value import (
    ConsumerGroupTargetAssignmentMetadataValue,
)


@dataclass
class LoadCheck:
    """What a load saw: groups with an epoch record, members with a metadata record."""

    groups: set[str] = field(default_factory=set)
    members: set[tuple[str, str]] = field(default_factory=set)

    def finish(self, groups: dict[str, ConsumerGroup]) -> None:
        """Drop what only stray records (their owner's tombstoned or compacted) stood for."""
        for gid in [g for g in groups if g not in self.groups]:
            del groups[gid]
        for group in groups.values():
            for mid in [m for m in group.members if (group.group_id, m) not in self.members]:
                group.remove(mid)
            for mid in [m for m in group.target if m not in group.members]:
                del group.target[mid]


def replay(groups: dict[str, ConsumerGroup], record_type: int, key: bytes, value: bytes | None,
           names: Mapping[uuid.UUID, str], check: LoadCheck | None = None) -> None:
    """Apply one record: `key` without its int16 record type, `value` with its int16
    version (None: a tombstone). Raises ValueError when unreadable."""
    body = value[2:] if value is not None else None
    if record_type == GROUP_EPOCH:
        gid = ConsumerGroupMetadataKey.decode(key, 0).group_id
        if body is None:
            groups.pop(gid, None)
            if check is not None:
                check.groups.discard(gid)
            return
        _group(groups, gid).group_epoch = ConsumerGroupMetadataValue.decode(body, 0).epoch
        if check is not None:
            check.groups.add(gid)
    elif record_type == TARGET_EPOCH:
        gid = ConsumerGroupTargetAssignmentMetadataKey.decode(key, 0).group_id
        if body is not None:
            _group(groups, gid).assignment_epoch = \
                ConsumerGroupTargetAssignmentMetadataValue.decode(body, 0).assignment_epoch
    elif record_type == MEMBER_METADATA:
        k = ConsumerGroupMemberMetadataKey.decode(key, 0)
        if body is None:
            group = groups.get(k.group_id)
            if group is not None:
                group.remove(k.member_id)
            if check is not None:
                check.members.discard((k.group_id, k.member_id))
            return
        _member_metadata(_group(groups, k.group_id), k.member_id, ConsumerGroupMemberMetadataValue.decode(body, 0))
        if check is not None:
            check.members.add((k.group_id, k.member_id))
    elif record_type == CURRENT_ASSIGNMENT:
        c = ConsumerGroupCurrentMemberAssignmentKey.decode(key, 0)
        group = groups.get(c.group_id) if body is None else _group(groups, c.group_id)
        if group is None:
            return
        member = _member(group, c.member_id) if body is not None else group.members.get(c.member_id)
        if member is None:
            return
        if body is None:
            member.static_left = False
            group.set_assignment(member, MemberAssignment())
            return
        current = ConsumerGroupCurrentMemberAssignmentValue.decode(body, 0)
        # A static member that left is written at epoch -2, the epoch it left at as the
        # previous one (`records.current_assignment_record`).
        member.static_left = current.member_epoch == STATIC_LEAVE_EPOCH
        epoch, previous = (current.previous_member_epoch, -1) if member.static_left \
            else (current.member_epoch, current.previous_member_epoch)
        group.set_assignment(member, MemberAssignment(
            STATES.get(current.state, MemberState.UNKNOWN), epoch, previous,
            _names(current.assigned_partitions, names), _names(current.partitions_pending_revocation, names)))
    elif record_type == TARGET_MEMBER:
        t = ConsumerGroupTargetAssignmentMemberKey.decode(key, 0)
        if body is None:
            group = groups.get(t.group_id)
            if group is not None:
                group.target.pop(t.member_id, None)
            return
        _group(groups, t.group_id).target[t.member_id] = _names(
            ConsumerGroupTargetAssignmentMemberValue.decode(body, 0).topic_partitions, names)


def _group(groups: dict[str, ConsumerGroup], group_id: str) -> ConsumerGroup:
    group = groups.get(group_id)
    if group is None:
        # The partition counts its target was computed from are not in the log: the first
        # heartbeat adopts the current ones.
        group = groups[group_id] = ConsumerGroup(group_id, subscription_metadata=None)
    return group


def _member(group: ConsumerGroup, member_id: str) -> ConsumerMember:
    member = group.members.get(member_id)
    if member is None:
        member = ConsumerMember(member_id)
        group.add(member)
    return member


def _member_metadata(group: ConsumerGroup, member_id: str, meta: ConsumerGroupMemberMetadataValue) -> None:
    member = group.members.get(member_id)
    if member is None:
        member = ConsumerMember(member_id, instance_id=meta.instance_id)
        group.add(member)
    elif member.instance_id != meta.instance_id:
        # Only a member a compacted log named first by its assignment gets its instance id so.
        if member.instance_id is not None and group.static_members.get(member.instance_id) == member_id:
            del group.static_members[member.instance_id]
        member.instance_id = meta.instance_id
        if meta.instance_id is not None:
            group.static_members[meta.instance_id] = member_id
    member.rack_id = meta.rack_id
    member.client_id, member.client_host = meta.client_id, meta.client_host
    member.subscribed_topic_names = tuple(meta.subscribed_topic_names)
    member.subscribed_topic_regex = meta.subscribed_topic_regex
    member.rebalance_timeout_ms = meta.rebalance_timeout_ms
    member.server_assignor = meta.server_assignor
    c = meta.classic_member_metadata
    member.classic = None if c is None else \
        ClassicMetadata(c.session_timeout_ms, tuple((p.name, p.metadata) for p in c.supported_protocols))


def _names(topics: Iterable[CurrentTopic | TopicPartition], names: Mapping[uuid.UUID, str]) -> frozenset[Partition]:
    return frozenset((names[t.topic_id], p) for t in topics if t.topic_id in names for p in t.partitions)
