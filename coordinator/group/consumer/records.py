"""The records of KIP-848 consumer groups in `__consumer_offsets` (Kafka's
GroupCoordinatorRecordHelpers), and rebuilding the groups from them on load.

key   = int16 record type (3 group epoch, 5 member metadata, 6 target assignment epoch,
        7 a member's target, 8 a member's current assignment) + key struct (version 0)
value = int16 version 0 + value struct; a null value is a tombstone.
Partitions are stored by topic id, as Kafka does; `names` maps them back on load."""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from coordinator.group.consumer.assignors import Partition
from coordinator.group.consumer.group import (
    STATIC_LEAVE_EPOCH,
    ClassicMetadata,
    ConsumerGroup,
    ConsumerMember,
)
from coordinator.group.consumer.reconciliation import MemberAssignment, MemberState
from coordinator.log import Record
from protocol.messages.consumer_group_current_member_assignment_key import (
    ConsumerGroupCurrentMemberAssignmentKey,
)
from protocol.messages.consumer_group_current_member_assignment_value import (
    ConsumerGroupCurrentMemberAssignmentValue,
)
from protocol.messages.consumer_group_current_member_assignment_value import TopicPartitions as CurrentTopic
from protocol.messages.consumer_group_member_metadata_key import ConsumerGroupMemberMetadataKey
from protocol.messages.consumer_group_member_metadata_value import (
    ClassicMemberMetadata,
    ClassicProtocol,
    ConsumerGroupMemberMetadataValue,
)
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

GROUP_EPOCH, MEMBER_METADATA, TARGET_EPOCH, TARGET_MEMBER, CURRENT_ASSIGNMENT = 3, 5, 6, 7, 8
RECORD_TYPES = frozenset({GROUP_EPOCH, MEMBER_METADATA, TARGET_EPOCH, TARGET_MEMBER, CURRENT_ASSIGNMENT})
_I16 = struct.Struct(">h")
_V = TypeVar("_V")
# Kafka's MemberState ids.
_STATE_IDS = {MemberState.STABLE: 0, MemberState.UNREVOKED_PARTITIONS: 1,
              MemberState.UNRELEASED_PARTITIONS: 2, MemberState.UNKNOWN: 127}
_STATES = {v: k for k, v in _STATE_IDS.items()}


def _key(record_type: int, body: bytes) -> bytes:
    return _I16.pack(record_type) + body


def _value(body: bytes) -> bytes:
    return _I16.pack(0) + body


def _by_id(partitions: Iterable[Partition], ids: Mapping[str, uuid.UUID]) -> dict[uuid.UUID, list[int]]:
    out: dict[uuid.UUID, list[int]] = {}
    for name, p in sorted(partitions):
        if name in ids:
            out.setdefault(ids[name], []).append(p)
    return out


def epoch_record(group: ConsumerGroup) -> Record:
    return (_key(GROUP_EPOCH, ConsumerGroupMetadataKey(group.group_id).encode(0)),
            _value(ConsumerGroupMetadataValue(epoch=group.group_epoch).encode(0)))


def member_records(group_id: str, member: ConsumerMember, ids: Mapping[str, uuid.UUID]) -> list[Record]:
    """The member's metadata and current assignment."""
    meta = ConsumerGroupMemberMetadataValue(
        instance_id=member.instance_id, rack_id=member.rack_id, client_id=member.client_id,
        client_host=member.client_host, subscribed_topic_names=list(member.subscribed_topic_names),
        subscribed_topic_regex=member.subscribed_topic_regex, rebalance_timeout_ms=member.rebalance_timeout_ms,
        server_assignor=member.server_assignor,
        classic_member_metadata=None if member.classic is None else ClassicMemberMetadata(
            member.classic.session_timeout_ms, [ClassicProtocol(n, m) for n, m in member.classic.protocols]),
    )
    return [
        (_key(MEMBER_METADATA, ConsumerGroupMemberMetadataKey(group_id, member.member_id).encode(0)),
         _value(meta.encode(0))),
        current_assignment_record(group_id, member, ids),
    ]


def current_assignment_record(group_id: str, member: ConsumerMember, ids: Mapping[str, uuid.UUID]) -> Record:
    """A static member that left is written at epoch -2, as Kafka does; the epoch it left
    at goes in the previous epoch, which is what it resumes from when it returns."""
    a = member.assignment
    epoch, previous = (STATIC_LEAVE_EPOCH, a.member_epoch) if member.static_left \
        else (a.member_epoch, a.previous_member_epoch)
    current = ConsumerGroupCurrentMemberAssignmentValue(
        member_epoch=epoch, previous_member_epoch=previous, state=_STATE_IDS[a.state],
        assigned_partitions=[CurrentTopic(t, ps) for t, ps in _by_id(a.assigned, ids).items()],
        partitions_pending_revocation=[CurrentTopic(t, ps) for t, ps in _by_id(a.pending_revocation, ids).items()],
    )
    return (_key(CURRENT_ASSIGNMENT, ConsumerGroupCurrentMemberAssignmentKey(group_id, member.member_id).encode(0)),
            _value(current.encode(0)))


def target_records(group: ConsumerGroup, ids: Mapping[str, uuid.UUID]) -> list[Record]:
    """Every member's target, then the epoch they belong to (Kafka writes it last)."""
    out: list[Record] = [
        (_key(TARGET_MEMBER, ConsumerGroupTargetAssignmentMemberKey(group.group_id, m).encode(0)),
         _value(ConsumerGroupTargetAssignmentMemberValue(
             [TopicPartition(t, ps) for t, ps in _by_id(tps, ids).items()]).encode(0)))
        for m, tps in group.target.items()
    ]
    out.append((_key(TARGET_EPOCH, ConsumerGroupTargetAssignmentMetadataKey(group.group_id).encode(0)),
                _value(ConsumerGroupTargetAssignmentMetadataValue(group.assignment_epoch).encode(0))))
    return out


def member_tombstones(group_id: str, member_id: str) -> list[Record]:
    return [
        (_key(CURRENT_ASSIGNMENT, ConsumerGroupCurrentMemberAssignmentKey(group_id, member_id).encode(0)), None),
        (_key(TARGET_MEMBER, ConsumerGroupTargetAssignmentMemberKey(group_id, member_id).encode(0)), None),
        (_key(MEMBER_METADATA, ConsumerGroupMemberMetadataKey(group_id, member_id).encode(0)), None),
    ]


def group_tombstones(group_id: str) -> list[Record]:
    return [
        (_key(TARGET_EPOCH, ConsumerGroupTargetAssignmentMetadataKey(group_id).encode(0)), None),
        (_key(GROUP_EPOCH, ConsumerGroupMetadataKey(group_id).encode(0)), None),
    ]


@dataclass
class _Loaded:
    epoch: int | None = None
    assignment_epoch: int = 0
    members: dict[str, ConsumerGroupMemberMetadataValue] = field(default_factory=dict)
    current: dict[str, ConsumerGroupCurrentMemberAssignmentValue] = field(default_factory=dict)
    target: dict[str, ConsumerGroupTargetAssignmentMemberValue] = field(default_factory=dict)


class ConsumerGroupReplay:
    """The last word of the log on every consumer group."""

    def __init__(self) -> None:
        self.groups: dict[str, _Loaded] = {}

    def apply(self, record_type: int, key: bytes, value: bytes | None) -> None:
        body = value[2:] if value is not None else None
        if record_type == GROUP_EPOCH:
            gid = ConsumerGroupMetadataKey.decode(key, 0).group_id
            if body is None:
                self.groups.pop(gid, None)
            else:
                self.groups.setdefault(gid, _Loaded()).epoch = ConsumerGroupMetadataValue.decode(body, 0).epoch
        elif record_type == TARGET_EPOCH:
            gid = ConsumerGroupTargetAssignmentMetadataKey.decode(key, 0).group_id
            if body is not None:
                self.groups.setdefault(gid, _Loaded()).assignment_epoch = \
                    ConsumerGroupTargetAssignmentMetadataValue.decode(body, 0).assignment_epoch
        elif record_type == MEMBER_METADATA:
            k = ConsumerGroupMemberMetadataKey.decode(key, 0)
            self._put(self.groups.setdefault(k.group_id, _Loaded()).members, k.member_id,
                      None if body is None else ConsumerGroupMemberMetadataValue.decode(body, 0))
        elif record_type == CURRENT_ASSIGNMENT:
            c = ConsumerGroupCurrentMemberAssignmentKey.decode(key, 0)
            self._put(self.groups.setdefault(c.group_id, _Loaded()).current, c.member_id,
                      None if body is None else ConsumerGroupCurrentMemberAssignmentValue.decode(body, 0))
        elif record_type == TARGET_MEMBER:
            t = ConsumerGroupTargetAssignmentMemberKey.decode(key, 0)
            self._put(self.groups.setdefault(t.group_id, _Loaded()).target, t.member_id,
                      None if body is None else ConsumerGroupTargetAssignmentMemberValue.decode(body, 0))

    @staticmethod
    def _put(table: dict[str, _V], member_id: str, value: _V | None) -> None:
        if value is None:
            table.pop(member_id, None)
        else:
            table[member_id] = value

    def build(self, names: Mapping[uuid.UUID, str]) -> list[ConsumerGroup]:
        """The groups, partitions of topics that no longer exist left out."""
        out = []
        for gid, loaded in self.groups.items():
            if loaded.epoch is None:
                continue
            group = ConsumerGroup(gid, group_epoch=loaded.epoch, assignment_epoch=loaded.assignment_epoch,
                                  subscription_metadata=None)
            for mid, meta in loaded.members.items():
                current = loaded.current.get(mid)
                assignment = MemberAssignment()
                static_left = current is not None and current.member_epoch == STATIC_LEAVE_EPOCH
                if current is not None:
                    epoch, previous = (current.previous_member_epoch, -1) if static_left \
                        else (current.member_epoch, current.previous_member_epoch)
                    assignment = MemberAssignment(
                        _STATES.get(current.state, MemberState.UNKNOWN), epoch, previous,
                        _names(current.assigned_partitions, names),
                        _names(current.partitions_pending_revocation, names))
                group.add(ConsumerMember(
                    mid, instance_id=meta.instance_id, rack_id=meta.rack_id, client_id=meta.client_id,
                    client_host=meta.client_host, rebalance_timeout_ms=meta.rebalance_timeout_ms,
                    subscribed_topic_names=tuple(meta.subscribed_topic_names),
                    subscribed_topic_regex=meta.subscribed_topic_regex, server_assignor=meta.server_assignor,
                    assignment=assignment, static_left=static_left, classic=_classic(meta)))
            for mid, target in loaded.target.items():
                if mid in group.members:
                    group.target[mid] = _names(target.topic_partitions, names)
            out.append(group)
        return out


def _names(topics: Iterable[CurrentTopic | TopicPartition], names: Mapping[uuid.UUID, str]) -> frozenset[Partition]:
    return frozenset((names[t.topic_id], p) for t in topics if t.topic_id in names for p in t.partitions)


def _classic(meta: ConsumerGroupMemberMetadataValue) -> ClassicMetadata | None:
    c = meta.classic_member_metadata
    if c is None:
        return None
    return ClassicMetadata(c.session_timeout_ms, tuple((p.name, p.metadata) for p in c.supported_protocols))
