"""A classic group as its GroupMetadata record in `__consumer_offsets`: the record written
for each generation, and the group a load rebuilds from it (Kafka's
GroupCoordinatorRecordHelpers.newGroupMetadataRecord and ClassicGroup.fromRecord)."""

from __future__ import annotations

from coordinator.group import records
from coordinator.group.classic.group import ClassicGroup, Member
from coordinator.group.classic.states import GroupState
from coordinator.log import Record
from protocol.messages.group_metadata_value import GroupMetadataValue, MemberMetadata


def group_record(group: ClassicGroup, assignment: dict[str, bytes]) -> Record:
    """The group's metadata record with this assignment."""
    protocol = group.protocol_name
    value = GroupMetadataValue(
        protocol_type=group.protocol_type or "",
        generation=group.generation_id,
        protocol=protocol,
        leader=group.leader_id,
        current_state_timestamp=group.current_state_timestamp if group.current_state_timestamp else -1,
        members=[
            MemberMetadata(
                member_id=m.member_id,
                group_instance_id=m.group_instance_id,
                client_id=m.client_id,
                client_host=m.client_host,
                rebalance_timeout=m.rebalance_timeout_ms,
                session_timeout=m.session_timeout_ms,
                subscription=m.metadata(protocol) if protocol is not None else b"",
                assignment=assignment.get(m.member_id, b""),
            )
            for m in group.members.values()
        ],
    )
    return records.group_key(group.group_id), records.group_value(value)


def group_from_record(group_id: str, value: GroupMetadataValue | None, now: int) -> ClassicGroup:
    group = ClassicGroup(group_id, now)
    if value is None:
        group.current_state_timestamp = None
        return group
    group.generation_id = value.generation
    group.protocol_type = value.protocol_type or None
    group.protocol_name = value.protocol
    group.current_state_timestamp = value.current_state_timestamp if value.current_state_timestamp >= 0 else None
    for mm in value.members:
        member = Member(
            member_id=mm.member_id,
            group_instance_id=mm.group_instance_id,
            client_id=mm.client_id,
            client_host=mm.client_host,
            rebalance_timeout_ms=mm.rebalance_timeout if mm.rebalance_timeout >= 0 else mm.session_timeout,
            session_timeout_ms=mm.session_timeout,
            protocol_type=value.protocol_type,
            protocols=[(value.protocol or "", mm.subscription)],
            assignment=mm.assignment,
        )
        group.add(member, None)
    group.protocol_type = value.protocol_type or None
    group.leader_id = value.leader if value.leader in group.members else next(iter(group.members), None)
    if group.members:
        group.state = GroupState.STABLE
        group.subscribed_topics = group.compute_subscribed_topics()
    return group
