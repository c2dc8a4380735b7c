"""Members of the classic protocol in a consumer group (KIP-848's mixed groups; Kafka's
GroupMetadataManager.classicGroupJoinToConsumerGroup, classicGroupSyncToConsumerGroup,
classicGroupHeartbeatToConsumerGroup and classicGroupLeaveToConsumerGroup).

They keep speaking JoinGroup/SyncGroup/Heartbeat/LeaveGroup, but the broker assigns: a
JoinGroup updates the member's subscription (read from its consumer protocol metadata) and
reconciles it towards the consumer group's target, the owned partitions it reports standing
for its revocations; SyncGroup hands back what it may hold now, and Heartbeat answers
REBALANCE_IN_PROGRESS whenever it has to rejoin to move on. The generation is the member
epoch."""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from coordinator.group.api import (
    JoinMember,
    JoinResult,
    LeavingMember,
    MemberHeartbeat,
    SyncMember,
    SyncResult,
)
from coordinator.group.classic.group import CONSUMER_PROTOCOL_TYPE, decode_subscription
from coordinator.group.consumer.classic_protocol import encode_assignment, owned_partitions
from coordinator.group.consumer.group import ClassicMetadata, ConsumerGroup, ConsumerMember, TopicImage
from coordinator.group.consumer.heartbeat import CONSUMER_GROUP_HEARTBEAT, ConsumerHeartbeatHandler
from coordinator.group.consumer.ports import ConsumerRuntime
from coordinator.group.consumer.reconciliation import MemberState
from coordinator.log import CoordinatorLogError, Record
from protocol.errors import ErrorCode


class ClassicMemberHandler:
    def __init__(self, rt: ConsumerRuntime, consumers: ConsumerHeartbeatHandler) -> None:
        self.rt = rt
        self.consumers = consumers

    def _classic_member(self, group: ConsumerGroup, member_id: str, instance_id: str | None,
                        classic_only: bool = True) -> tuple[ConsumerMember | None, ErrorCode]:
        """Kafka's validateClassicGroupHeartbeat/Sync member checks."""
        member = group.members.get(member_id)
        if member is None or (classic_only and member.classic is None):
            return None, ErrorCode.UNKNOWN_MEMBER_ID
        if instance_id is not None and group.static_members.get(instance_id) != member_id:
            return None, ErrorCode.FENCED_INSTANCE_ID
        return member, ErrorCode.NONE

    # --- JoinGroup ---------------------------------------------------------------------------

    def _still_mixed(self, group: ConsumerGroup) -> bool:
        """Whether the group still takes classic members (a write before this one may have
        made it classic again or deleted it)."""
        return self.rt.consumer_groups.get(group.group_id) is group and bool(group.members)

    async def join(self, group: ConsumerGroup, req: JoinMember, topics: Mapping[str, TopicImage]) -> JoinResult | None:
        """None when the group is no consumer group with members any more: the classic
        group of the id takes the request."""

        def operation() -> tuple[list[Record], JoinResult | None]:
            result = self._join(group, req, topics) if self._still_mixed(group) else None
            return self.consumers.take_records(), result

        def failed(exc: CoordinatorLogError) -> JoinResult | None:
            return JoinResult(exc.client_error(CONSUMER_GROUP_HEARTBEAT), req.member_id)

        return await self.rt.write(req.group_id, operation, failed)

    def _join(self, group: ConsumerGroup, req: JoinMember, topics: Mapping[str, TopicImage]) -> JoinResult:
        if req.protocol_type != CONSUMER_PROTOCOL_TYPE or not req.protocols:
            return JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, req.member_id)
        sub = decode_subscription(req.protocols[0][1])
        if sub is None:
            return JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, req.member_id)
        unknown = req.member_id == ""
        member_id = str(uuid.uuid4()) if unknown else req.member_id
        if unknown and req.group_instance_id is None and req.require_known_member_id:
            # KIP-394 as for classic groups: the id first, the join with it.
            return JoinResult(ErrorCode.MEMBER_ID_REQUIRED, member_id)
        member = group.members.get(member_id)
        joined = False
        if req.group_instance_id is not None:
            previous_id = group.static_members.get(req.group_instance_id)
            if previous_id is not None and previous_id != member_id:
                if not unknown:
                    return JoinResult(ErrorCode.FENCED_INSTANCE_ID, req.member_id)
                # The static member is back under a new id: it takes over its place.
                member = self.consumers.replace_static(group, group.members[previous_id], member_id)
        if member is None:
            # Kafka creates the member whatever id it brings (the one MEMBER_ID_REQUIRED gave).
            if len(group.members) >= self.rt.config.consumer_max_size:
                return JoinResult(ErrorCode.GROUP_MAX_SIZE_REACHED, "")
            member = ConsumerMember(member_id, instance_id=req.group_instance_id)
            group.add(member)
            joined = True
        elif member.classic is None:
            return JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, req.member_id)
        topics_before = member.subscribed_topic_names
        member.subscribed_topic_names = tuple(sorted(sub.topics))
        member.rebalance_timeout_ms = req.rebalance_timeout_ms
        member.client_id, member.client_host = req.client_id, req.client_host
        if sub.rack_id is not None:
            member.rack_id = sub.rack_id
        member.classic = ClassicMetadata(req.session_timeout_ms, tuple(req.protocols))
        changed = not joined and topics_before != member.subscribed_topic_names
        _, after = self.consumers.advance(group, member, joined, changed, owned_partitions(sub), topics, write=True,
                                          describable=req.describable)
        return JoinResult(ErrorCode.NONE, member_id, after.member_epoch, CONSUMER_PROTOCOL_TYPE,
                          member.classic.protocol_name, "", False, [])

    # --- SyncGroup, Heartbeat, LeaveGroup -------------------------------------------------------

    def sync(self, group: ConsumerGroup, req: SyncMember) -> SyncResult:
        member, error = self._classic_member(group, req.member_id, req.group_instance_id)
        if member is None or member.classic is None:
            return SyncResult(error)
        if req.generation_id != member.assignment.member_epoch:
            return SyncResult(ErrorCode.ILLEGAL_GENERATION)
        name = member.classic.protocol_name
        if (req.protocol_type is not None and req.protocol_type != CONSUMER_PROTOCOL_TYPE) or \
                (req.protocol_name is not None and req.protocol_name != name):
            return SyncResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL)
        self.consumers.touch(group, member)
        return SyncResult(ErrorCode.NONE, CONSUMER_PROTOCOL_TYPE, name, encode_assignment(member.assignment.assigned))

    def heartbeat(self, group: ConsumerGroup, req: MemberHeartbeat) -> ErrorCode:
        member, error = self._classic_member(group, req.member_id, req.group_instance_id)
        if member is None:
            return error
        if req.generation_id != member.assignment.member_epoch:
            return ErrorCode.ILLEGAL_GENERATION
        self.consumers.touch(group, member)
        state = member.assignment.state
        # Rejoin to catch up with a newer group epoch, to report revoked partitions, or to
        # pick up partitions another member has released meanwhile.
        if member.assignment.member_epoch < group.group_epoch or state is MemberState.UNREVOKED_PARTITIONS or (
                state is MemberState.UNRELEASED_PARTITIONS and not group.waiting_on_unreleased(member)):
            return ErrorCode.REBALANCE_IN_PROGRESS
        return ErrorCode.NONE

    async def leave(self, group: ConsumerGroup, members: list[LeavingMember]
                    ) -> tuple[ErrorCode, list[ErrorCode]] | None:
        """The members leave once that is in the log; None as for `join`."""

        def operation() -> tuple[list[Record], tuple[ErrorCode, list[ErrorCode]] | None]:
            result = (ErrorCode.NONE, self._leave(group, members)) if self._still_mixed(group) else None
            return self.consumers.take_records(), result

        def failed(exc: CoordinatorLogError) -> tuple[ErrorCode, list[ErrorCode]] | None:
            return exc.client_error(CONSUMER_GROUP_HEARTBEAT), []

        return await self.rt.write(group.group_id, operation, failed)

    def _leave(self, group: ConsumerGroup, members: list[LeavingMember]) -> list[ErrorCode]:
        errors = []
        for leaving in members:
            member_id = leaving.member_id
            if member_id == "" and leaving.group_instance_id is not None:
                member_id = group.static_members.get(leaving.group_instance_id, "")
            # Any member, of either protocol: Kafka's classicGroupLeaveToConsumerGroup lets
            # the admin client (removeMembersFromConsumerGroup) remove KIP-848 members too.
            member, error = self._classic_member(group, member_id, leaving.group_instance_id, classic_only=False)
            if member is None:
                errors.append(error)
                continue
            self.consumers.remove(group, member_id)
            errors.append(ErrorCode.NONE)
            if self.rt.consumer_groups.get(group.group_id) is not group:
                break  # the group became classic: the rest are its members now
        return errors + [ErrorCode.UNKNOWN_MEMBER_ID] * (len(members) - len(errors))
