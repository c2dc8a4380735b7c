"""The records of KIP-848 consumer groups in `__consumer_offsets` (Kafka's
GroupCoordinatorRecordHelpers); `replay.py` applies them to the groups.

key   = int16 record type (3 group epoch, 5 member metadata, 6 target assignment epoch,
        7 a member's target, 8 a member's current assignment) + key struct (version 0)
value = int16 version 0 + value struct; a null value is a tombstone.
Partitions are stored by topic id, as Kafka does."""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterable, Mapping

from coordinator.group.consumer.assignors import Partition
from coordinator.group.consumer.group import (
    STATIC_LEAVE_EPOCH,
    ConsumerGroup,
    ConsumerMember,
)
from coordinator.group.consumer.reconciliation import MemberState
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
# Kafka's MemberState ids.
_STATE_IDS = {MemberState.STABLE: 0, MemberState.UNREVOKED_PARTITIONS: 1,
              MemberState.UNRELEASED_PARTITIONS: 2, MemberState.UNKNOWN: 127}
STATES = {v: k for k, v in _STATE_IDS.items()}


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
