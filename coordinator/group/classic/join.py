"""JoinGroup: new members (KIP-394 member ids), known members rejoining, and static members
(KIP-345) taking over their old member id."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from coordinator.group.api import JoinMember, JoinResult
from coordinator.group.classic.group import ClassicGroup, Member
from coordinator.group.classic.ports import ClassicRuntime
from coordinator.group.classic.rebalance import Rebalancer
from coordinator.group.classic.states import GroupState
from coordinator.log import GROUP_METADATA, CoordinatorLogError
from protocol.errors import ErrorCode

# A consumer group (KIP-848) of the id, if any, gives way to the JoinGroup or refuses it:
# the refusal, or None to go on (`GroupConversion.make_way_for_classic`; consumer groups
# sit above classic/, which names none of them).
ConsumerGroupInTheWay = Callable[[JoinMember], Awaitable[JoinResult | None]]


@dataclass(frozen=True, slots=True)
class _Previous:
    """A static member as it was before a replacement, restored if persisting fails."""

    member_id: str
    protocols: list[tuple[str, bytes]]
    rebalance_timeout_ms: int
    session_timeout_ms: int
    leader_id: str | None


class JoinHandler:
    def __init__(self, rt: ClassicRuntime, rebalance: Rebalancer,
                 consumer_group_in_the_way: ConsumerGroupInTheWay) -> None:
        self.rt = rt
        self.rebalance = rebalance
        self.consumer_group_in_the_way = consumer_group_in_the_way

    async def join_group(self, req: JoinMember) -> JoinResult:
        error = self.rt.validate(req.group_id, allow_empty=False)
        if error is not None:
            return JoinResult(error, req.member_id)
        config = self.rt.config
        if not config.min_session_timeout_ms <= req.session_timeout_ms <= config.max_session_timeout_ms:
            return JoinResult(ErrorCode.INVALID_SESSION_TIMEOUT, req.member_id)
        if self.rt.share_group(req.group_id):
            # Kafka's classicGroupJoin: the group exists and is not a consumer group.
            return JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, "")
        refused = await self.consumer_group_in_the_way(req)
        if refused is not None:
            return refused
        is_unknown = req.member_id == ""
        group = self.rt.groups.get(req.group_id)
        if group is None:
            if not is_unknown:
                return JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, req.member_id)
            group = self.rt.new_group(req.group_id)
        fut: asyncio.Future[JoinResult] = asyncio.get_running_loop().create_future()
        if not self._accept_joining_member(group, req.member_id):
            removed = group.members.get(req.member_id)
            if removed is not None:
                self.rebalance.remove_member_and_update_group(group, removed)
            return JoinResult(ErrorCode.GROUP_MAX_SIZE_REACHED, "")
        if is_unknown:
            self._new_member_join(group, req, fut)
        else:
            self._current_member_join(group, req, fut)
        if group.is_state(GroupState.PREPARING_REBALANCE):
            self.rebalance.try_complete_join(group)
        return await fut

    def _accept_joining_member(self, group: ClassicGroup, member_id: str) -> bool:
        state = group.state
        max_size = self.rt.config.max_size
        if state in (GroupState.EMPTY, GroupState.DEAD):
            return True
        if state is GroupState.PREPARING_REBALANCE:
            known = group.has(member_id) and group.get(member_id).awaiting_join
            return known or group.num_awaiting_join < max_size
        return group.has(member_id) or len(group.members) < max_size

    def _new_member_join(self, group: ClassicGroup, req: JoinMember, fut: asyncio.Future[JoinResult]) -> None:
        if group.is_state(GroupState.DEAD):
            fut.set_result(JoinResult(ErrorCode.COORDINATOR_NOT_AVAILABLE, ""))
            return
        if not group.supports_protocols(req.protocol_type, req.protocols):
            fut.set_result(JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, ""))
            return
        instance_id = req.group_instance_id
        new_id = f"{instance_id if instance_id is not None else req.client_id}-{uuid.uuid4()}"
        if instance_id is not None:
            old_id = group.current_static_member_id(instance_id)
            if old_id is not None:
                self._replace_static_member(group, instance_id, old_id, new_id, req, fut)
                return
        elif req.require_known_member_id:
            # KIP-394: hand out the member id first, so a retried join is recognised.
            group.pending_members.add(new_id)
            self.rebalance.schedule_session(group, new_id, req.session_timeout_ms)
            fut.set_result(JoinResult(ErrorCode.MEMBER_ID_REQUIRED, new_id))
            return
        self._add_member_and_rebalance(group, new_id, instance_id, req, fut)

    def _add_member_and_rebalance(
        self, group: ClassicGroup, member_id: str, instance_id: str | None, req: JoinMember,
        fut: asyncio.Future[JoinResult],
    ) -> None:
        member = Member(member_id, instance_id, req.client_id, req.client_host, req.rebalance_timeout_ms,
                        req.session_timeout_ms, req.protocol_type, req.protocols, is_new=True)
        if group.is_state(GroupState.PREPARING_REBALANCE) and group.generation_id == 0:
            group.new_member_added = True
        group.add(member, fut)
        self.rebalance.cancel_heartbeat(group, member_id)
        self.rebalance.schedule_heartbeat(group, member, self.rt.config.new_member_join_timeout_ms)
        self.rebalance.maybe_prepare_rebalance(group)

    def _replace_static_member(
        self, group: ClassicGroup, instance_id: str, old_id: str, new_id: str, req: JoinMember,
        fut: asyncio.Future[JoinResult],
    ) -> None:
        member = group.get(old_id)
        previous = _Previous(old_id, member.protocols, member.rebalance_timeout_ms, member.session_timeout_ms,
                             group.leader_id)
        group.replace_static_member(instance_id, old_id, new_id)
        self.rebalance.cancel_heartbeat(group, old_id)
        self.rebalance.schedule_heartbeat(group, member)
        group.update_member(member, req.protocols, req.rebalance_timeout_ms, req.session_timeout_ms, fut)
        if group.is_state(GroupState.STABLE):
            if group.protocol_name == group.select_protocol():
                # Same protocol: persist the new member id and hand back the current generation.
                self.rt.spawn(self._persist_static_replacement(group, member, instance_id, previous))
            else:
                self.rebalance.maybe_prepare_rebalance(group)
        elif group.is_state(GroupState.COMPLETING_REBALANCE):
            # The leader may have assigned to the old id already: rebalance again.
            self.rebalance.prepare_rebalance(group)

    async def _persist_static_replacement(
        self, group: ClassicGroup, member: Member, instance_id: str, previous: _Previous
    ) -> None:
        new_id = member.member_id
        try:
            await self.rebalance.store_group(group, {m.member_id: m.assignment for m in group.members.values()})
        except CoordinatorLogError as exc:
            fut = member.join_future
            member.join_future = None
            if self.rt.current(group) and group.members.get(new_id) is member:
                group.replace_static_member(instance_id, new_id, previous.member_id)
                group.update_member(member, previous.protocols, previous.rebalance_timeout_ms,
                                    previous.session_timeout_ms, None)
                self.rebalance.cancel_heartbeat(group, new_id)
                self.rebalance.schedule_heartbeat(group, member)
            if fut is not None and not fut.done():
                fut.set_result(JoinResult(exc.client_error(GROUP_METADATA), ""))
            return
        is_leader = group.is_leader(new_id)
        member.complete_join(JoinResult(
            ErrorCode.NONE, new_id, group.generation_id, group.protocol_type, group.protocol_name,
            previous.leader_id or "", is_leader, group.current_member_metadata() if is_leader else [],
        ))

    def _current_member_join(self, group: ClassicGroup, req: JoinMember, fut: asyncio.Future[JoinResult]) -> None:
        member_id, instance_id = req.member_id, req.group_instance_id

        def reply(error: ErrorCode) -> None:
            fut.set_result(JoinResult(error, member_id))

        if group.is_state(GroupState.DEAD):
            return reply(ErrorCode.COORDINATOR_NOT_AVAILABLE)
        if not group.supports_protocols(req.protocol_type, req.protocols):
            return reply(ErrorCode.INCONSISTENT_GROUP_PROTOCOL)
        if group.is_pending_member(member_id):
            if instance_id is not None:
                return reply(ErrorCode.UNKNOWN_MEMBER_ID)
            self._add_member_and_rebalance(group, member_id, None, req, fut)
            return None
        if group.is_static_member_fenced(instance_id, member_id):
            return reply(ErrorCode.FENCED_INSTANCE_ID)
        if not group.has(member_id) or (instance_id is not None and instance_id not in group.static_members):
            return reply(ErrorCode.UNKNOWN_MEMBER_ID)
        member = group.get(member_id)
        state = group.state
        current = JoinResult(
            ErrorCode.NONE, member_id, group.generation_id, group.protocol_type, group.protocol_name,
            group.leader_id or "", False,
        )
        if state is GroupState.PREPARING_REBALANCE:
            self._update_member_and_rebalance(group, member, req, fut)
        elif state is GroupState.COMPLETING_REBALANCE:
            if member.matches(req.protocols):
                # A retry of a JoinGroup whose response was lost: the current generation again.
                if group.is_leader(member_id):
                    current.members = group.current_member_metadata()
                fut.set_result(current)
            else:
                self._update_member_and_rebalance(group, member, req, fut)
        elif state is GroupState.STABLE:
            if group.is_leader(member_id) or not member.matches(req.protocols):
                # The leader rejoining forces a rebalance (e.g. for topic metadata changes).
                self._update_member_and_rebalance(group, member, req, fut)
            else:
                fut.set_result(current)
        else:
            reply(ErrorCode.UNKNOWN_MEMBER_ID)
        return None

    def _update_member_and_rebalance(
        self, group: ClassicGroup, member: Member, req: JoinMember, fut: asyncio.Future[JoinResult]
    ) -> None:
        group.update_member(member, req.protocols, req.rebalance_timeout_ms, req.session_timeout_ms, fut)
        self.rebalance.maybe_prepare_rebalance(group)
