"""Share group membership in `__consumer_offsets`, as Kafka's group coordinator writes it for
share groups (GroupCoordinatorRecordHelpers): record types 10 (a member's metadata), 11 (the
group epoch), 12 (the target assignment's epoch), 13 (a member's target assignment) and 14
(a member's current epoch and assignment); key = int16 record type + key struct (version
0), value = int16 version 0 + value struct, a null value a tombstone. Partitions are stored
by topic id, as Kafka does.

`group_records` is a group as records (what is durable of it); `replay` applies one record
to the groups, on load. Records come in any order a compacted log leaves them in: a group
or member is made by the first record naming it, and `LoadCheck` drops, once a load is
over, what no epoch (11) or member metadata (10) record stood for."""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from coordinator.log import Record
from coordinator.share.assignor import TopicPartition
from coordinator.share.group import ShareGroup, ShareMember
from protocol.messages.share_group_current_member_assignment_key import ShareGroupCurrentMemberAssignmentKey
from protocol.messages.share_group_current_member_assignment_value import (
    ShareGroupCurrentMemberAssignmentValue,
)
from protocol.messages.share_group_current_member_assignment_value import TopicPartitions as CurrentTopic
from protocol.messages.share_group_member_metadata_key import ShareGroupMemberMetadataKey
from protocol.messages.share_group_member_metadata_value import ShareGroupMemberMetadataValue
from protocol.messages.share_group_metadata_key import ShareGroupMetadataKey
from protocol.messages.share_group_metadata_value import ShareGroupMetadataValue
from protocol.messages.share_group_target_assignment_member_key import ShareGroupTargetAssignmentMemberKey
from protocol.messages.share_group_target_assignment_member_value import (
    ShareGroupTargetAssignmentMemberValue,
)
from protocol.messages.share_group_target_assignment_member_value import TopicPartition as TargetTopic
from protocol.messages.share_group_target_assignment_metadata_key import ShareGroupTargetAssignmentMetadataKey
from protocol.messages.share_group_target_assignment_metadata_value import (
    ShareGroupTargetAssignmentMetadataValue,
)

MEMBER_METADATA, GROUP_EPOCH, TARGET_EPOCH, TARGET_MEMBER, CURRENT_ASSIGNMENT = 10, 11, 12, 13, 14
RECORD_TYPES = frozenset({MEMBER_METADATA, GROUP_EPOCH, TARGET_EPOCH, TARGET_MEMBER, CURRENT_ASSIGNMENT})
# The order Kafka writes a change in: members and the group epoch, then the target
# assignment and its epoch, then the members' current assignments.
WRITE_ORDER = (MEMBER_METADATA, GROUP_EPOCH, TARGET_MEMBER, TARGET_EPOCH, CURRENT_ASSIGNMENT)
# Kafka's MemberState STABLE: a share member has no revocation step, so it is always stable.
_STABLE = 0
_I16 = struct.Struct(">h")


def record_type(key: bytes) -> int:
    return _I16.unpack_from(key)[0] if len(key) >= 2 else -1


def _key(kind: int, body: bytes) -> bytes:
    return _I16.pack(kind) + body


def _value(body: bytes) -> bytes:
    return _I16.pack(0) + body


def _by_id(partitions: Iterable[TopicPartition], ids: Mapping[str, uuid.UUID]) -> dict[uuid.UUID, list[int]]:
    out: dict[uuid.UUID, list[int]] = {}
    for name, index in sorted(partitions):
        if name in ids:
            out.setdefault(ids[name], []).append(index)
    return out


def group_records(group: ShareGroup, ids: Mapping[str, uuid.UUID]) -> dict[bytes, bytes]:
    """Every record that describes `group` now, key -> value. The metadata hash is not
    Kafka's (0: no hash); a Kafka broker reading it recomputes the assignment."""
    gid = group.group_id
    out: dict[bytes, bytes] = {}
    for m in group.members.values():
        meta = ShareGroupMemberMetadataValue(
            rack_id=m.rack_id, client_id=m.client_id, client_host=m.client_host,
            subscribed_topic_names=sorted(m.subscribed_topics),
        )
        out[_key(MEMBER_METADATA, ShareGroupMemberMetadataKey(gid, m.member_id).encode(0))] = _value(meta.encode(0))
        current = ShareGroupCurrentMemberAssignmentValue(
            member_epoch=m.member_epoch, previous_member_epoch=m.previous_member_epoch, state=_STABLE,
            assigned_partitions=[CurrentTopic(t, ps) for t, ps in _by_id(m.assignment, ids).items()],
        )
        out[_key(CURRENT_ASSIGNMENT, ShareGroupCurrentMemberAssignmentKey(gid, m.member_id).encode(0))] = \
            _value(current.encode(0))
    for member_id, target in group.target.items():
        value = ShareGroupTargetAssignmentMemberValue([TargetTopic(t, ps) for t, ps in _by_id(target, ids).items()])
        out[_key(TARGET_MEMBER, ShareGroupTargetAssignmentMemberKey(gid, member_id).encode(0))] = \
            _value(value.encode(0))
    out[_key(GROUP_EPOCH, ShareGroupMetadataKey(gid).encode(0))] = \
        _value(ShareGroupMetadataValue(epoch=group.group_epoch, metadata_hash=0).encode(0))
    out[_key(TARGET_EPOCH, ShareGroupTargetAssignmentMetadataKey(gid).encode(0))] = \
        _value(ShareGroupTargetAssignmentMetadataValue(group.assignment_epoch).encode(0))
    return out


def changes(before: Mapping[bytes, bytes], after: Mapping[bytes, bytes]) -> list[Record]:
    """The records that take the log from `before` to `after`: new or changed records in
    Kafka's write order, then tombstones (a member's before its group's)."""
    written = sorted(((k, v) for k, v in after.items() if before.get(k) != v),
                     key=lambda kv: WRITE_ORDER.index(record_type(kv[0])))
    gone = sorted((k for k in before if k not in after),
                  key=lambda k: -WRITE_ORDER.index(record_type(k)))
    return [*written, *((k, None) for k in gone)]


@dataclass
class LoadCheck:
    """What a load saw: groups with an epoch record, members with a metadata record."""

    groups: set[str] = field(default_factory=set)
    members: set[tuple[str, str]] = field(default_factory=set)

    def finish(self, groups: dict[str, ShareGroup]) -> None:
        for gid in [g for g in groups if g not in self.groups]:
            del groups[gid]
        for group in groups.values():
            for mid in [m for m in group.members if (group.group_id, m) not in self.members]:
                del group.members[mid]
            for mid in [m for m in group.target if m not in group.members]:
                del group.target[mid]


def replay(groups: dict[str, ShareGroup], key: bytes, value: bytes | None, names: Mapping[uuid.UUID, str],
           check: LoadCheck) -> None:
    """Apply one record (`key` with its int16 record type, `value` with its int16 version;
    None: a tombstone). Raises ValueError when unreadable."""
    kind, body, k = record_type(key), (value[2:] if value is not None else None), key[2:]
    if kind == GROUP_EPOCH:
        gid = ShareGroupMetadataKey.decode(k, 0).group_id
        if body is None:
            groups.pop(gid, None)
            check.groups.discard(gid)
            return
        _group(groups, gid).group_epoch = ShareGroupMetadataValue.decode(body, 0).epoch
        check.groups.add(gid)
    elif kind == TARGET_EPOCH:
        gid = ShareGroupTargetAssignmentMetadataKey.decode(k, 0).group_id
        if body is not None:
            _group(groups, gid).assignment_epoch = \
                ShareGroupTargetAssignmentMetadataValue.decode(body, 0).assignment_epoch
    elif kind == MEMBER_METADATA:
        mk = ShareGroupMemberMetadataKey.decode(k, 0)
        if body is None:
            group = groups.get(mk.group_id)
            if group is not None:
                group.members.pop(mk.member_id, None)
            check.members.discard((mk.group_id, mk.member_id))
            return
        meta = ShareGroupMemberMetadataValue.decode(body, 0)
        member = _member(_group(groups, mk.group_id), mk.member_id)
        member.rack_id, member.client_id, member.client_host = meta.rack_id, meta.client_id, meta.client_host
        member.subscribed_topics = frozenset(meta.subscribed_topic_names)
        check.members.add((mk.group_id, mk.member_id))
    elif kind == CURRENT_ASSIGNMENT:
        ck = ShareGroupCurrentMemberAssignmentKey.decode(k, 0)
        if body is None:
            return  # its member's metadata tombstone removes the member
        current = ShareGroupCurrentMemberAssignmentValue.decode(body, 0)
        member = _member(_group(groups, ck.group_id), ck.member_id)
        member.member_epoch, member.previous_member_epoch = current.member_epoch, current.previous_member_epoch
        member.assignment = _names(current.assigned_partitions, names)
    elif kind == TARGET_MEMBER:
        tk = ShareGroupTargetAssignmentMemberKey.decode(k, 0)
        if body is None:
            group = groups.get(tk.group_id)
            if group is not None:
                group.target.pop(tk.member_id, None)
            return
        _group(groups, tk.group_id).target[tk.member_id] = _names(
            ShareGroupTargetAssignmentMemberValue.decode(body, 0).topic_partitions, names)


def _group(groups: dict[str, ShareGroup], group_id: str) -> ShareGroup:
    group = groups.get(group_id)
    if group is None:
        group = groups[group_id] = ShareGroup(group_id)
        # The partition counts its target was computed from are not in the log: the first
        # heartbeat adopts the current ones rather than bumping the epoch.
        group.adopt_topics()
    return group


def _member(group: ShareGroup, member_id: str) -> ShareMember:
    member = group.members.get(member_id)
    if member is None:
        member = group.members[member_id] = ShareMember(member_id, "", "")
    return member


def _names(topics: Iterable[CurrentTopic | TargetTopic], names: Mapping[uuid.UUID, str]) -> frozenset[TopicPartition]:
    return frozenset((names[t.topic_id], p) for t in topics if t.topic_id in names for p in t.partitions)
