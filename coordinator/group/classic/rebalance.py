"""The classic rebalance protocol's engine: member sessions, the join phase (with the
initial delay), the sync phase and its timeout, and handing out the assignment. Every
deadline is a timer on the injected clock (`coordinator/group/timers.py`)."""

from __future__ import annotations

import structlog

from coordinator.group.api import JoinResult, SyncResult
from coordinator.group.classic.group import ClassicGroup, DelayedJoin, InitialJoin, Member
from coordinator.group.classic.metadata import group_record
from coordinator.group.classic.ports import ClassicRuntime
from coordinator.group.classic.states import GroupState
from coordinator.group.timers import heartbeat_key, join_key, sync_key
from coordinator.log import GROUP_METADATA, LEAVE_GROUP, CoordinatorLogError
from protocol.errors import ErrorCode

log = structlog.get_logger("odradek.groups")


class Rebalancer:
    def __init__(self, rt: ClassicRuntime) -> None:
        self.rt = rt

    # --- sessions ------------------------------------------------------------------------

    def schedule_heartbeat(self, group: ClassicGroup, member: Member, timeout_ms: int | None = None) -> None:
        self.schedule_session(group, member.member_id,
                              member.session_timeout_ms if timeout_ms is None else timeout_ms)

    def schedule_session(self, group: ClassicGroup, member_id: str, timeout_ms: int) -> None:
        self.rt.schedule(heartbeat_key(group.group_id, member_id), timeout_ms,
                         lambda: self._on_expire_heartbeat(group, member_id))

    def cancel_heartbeat(self, group: ClassicGroup, member_id: str) -> None:
        self.rt.cancel(heartbeat_key(group.group_id, member_id))

    def _on_expire_heartbeat(self, group: ClassicGroup, member_id: str) -> None:
        if not self.rt.current(group):
            return
        if group.is_pending_member(member_id):
            self.remove_pending_member(group, member_id)
            return
        member = group.members.get(member_id)
        if member is not None and not member.has_satisfied_heartbeat():
            log.info("member session expired", group=group.group_id, member=member_id)
            self.remove_member_and_update_group(group, member)

    def remove_pending_member(self, group: ClassicGroup, member_id: str) -> None:
        group.pending_members.discard(member_id)
        self.cancel_heartbeat(group, member_id)
        if group.is_state(GroupState.PREPARING_REBALANCE):
            self.try_complete_join(group)

    def remove_member_and_update_group(self, group: ClassicGroup, member: Member) -> None:
        # A member removed while its JoinGroup waits is told to rejoin as a new member.
        member.complete_join(JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, member.member_id))
        member.complete_sync(SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
        group.remove(member.member_id)
        self.cancel_heartbeat(group, member.member_id)
        if group.state in (GroupState.STABLE, GroupState.COMPLETING_REBALANCE):
            self.maybe_prepare_rebalance(group)
        elif group.is_state(GroupState.PREPARING_REBALANCE):
            self.try_complete_join(group)

    # --- the join phase --------------------------------------------------------------------

    def maybe_prepare_rebalance(self, group: ClassicGroup) -> None:
        if group.can_rebalance():
            self.prepare_rebalance(group)

    def prepare_rebalance(self, group: ClassicGroup) -> None:
        if group.is_state(GroupState.COMPLETING_REBALANCE):
            self._reset_and_propagate_assignment_error(group, ErrorCode.REBALANCE_IN_PROGRESS)
        self.rt.cancel(sync_key(group.group_id))
        now = self.rt.clock.now_ms()
        if group.is_state(GroupState.EMPTY):
            delay = self.rt.config.initial_rebalance_delay_ms
            op = InitialJoin(delay, max(group.rebalance_timeout_ms - delay, 0))
            group.join_op = op
            group.transition_to(GroupState.PREPARING_REBALANCE, now)
            self.rt.schedule(join_key(group.group_id), delay, lambda: self._on_initial_join_expire(group, op))
        else:
            self._delay_join(group)
            group.transition_to(GroupState.PREPARING_REBALANCE, now)
            self.try_complete_join(group)

    def _delay_join(self, group: ClassicGroup) -> None:
        group.join_op = DelayedJoin()
        self.rt.schedule(join_key(group.group_id), group.rebalance_timeout_ms, lambda: self._on_complete_join(group))

    def _on_initial_join_expire(self, group: ClassicGroup, op: InitialJoin) -> None:
        if not self.rt.current(group) or group.join_op is not op:
            return
        if group.new_member_added and op.remaining_ms != 0:
            # More members arrived during the delay: wait again, within the rebalance timeout.
            group.new_member_added = False
            delay = min(self.rt.config.initial_rebalance_delay_ms, op.remaining_ms)
            nxt = InitialJoin(delay, max(op.remaining_ms - op.delay_ms, 0))
            group.join_op = nxt
            self.rt.schedule(join_key(group.group_id), delay, lambda: self._on_initial_join_expire(group, nxt))
        else:
            self._on_complete_join(group)

    def try_complete_join(self, group: ClassicGroup) -> None:
        if isinstance(group.join_op, DelayedJoin) and group.has_all_members_joined():
            self._on_complete_join(group)

    def _on_complete_join(self, group: ClassicGroup) -> None:
        if not self.rt.current(group) or not group.is_state(GroupState.PREPARING_REBALANCE):
            return
        self.rt.cancel(join_key(group.group_id))
        group.join_op = None
        for member in group.not_yet_rejoined():
            if not member.is_static:
                group.remove(member.member_id)
                self.cancel_heartbeat(group, member.member_id)
        if not group.maybe_elect_new_joined_leader() and group.members:
            # Only static members that have not rejoined remain: wait for them or their expiry.
            self._delay_join(group)
            return
        group.init_next_generation(self.rt.clock.now_ms())
        if group.is_state(GroupState.EMPTY):
            group.empty_generation_write = self.rt.spawn(self.store_empty_group(group))
            return
        leader_metadata = group.current_member_metadata()
        for member in group.members.values():
            member.complete_join(JoinResult(
                ErrorCode.NONE,
                member.member_id,
                group.generation_id,
                group.protocol_type,
                group.protocol_name,
                group.leader_id or "",
                False,
                leader_metadata if group.is_leader(member.member_id) else [],
            ))
            self.schedule_heartbeat(group, member)
            member.is_new = False
            group.pending_sync_members.add(member.member_id)
        generation = group.generation_id
        self.rt.schedule(sync_key(group.group_id), group.rebalance_timeout_ms,
                         lambda: self._on_expire_pending_sync(group, generation))

    # --- the sync phase --------------------------------------------------------------------

    def _on_expire_pending_sync(self, group: ClassicGroup, generation: int) -> None:
        if not self.rt.current(group) or generation != group.generation_id:
            return
        if group.state in (GroupState.COMPLETING_REBALANCE, GroupState.STABLE) and group.pending_sync_members:
            for member_id in list(group.pending_sync_members):
                member = group.members.get(member_id)
                group.remove(member_id)
                self.cancel_heartbeat(group, member_id)
                if member is not None:
                    member.complete_sync(SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
            self.prepare_rebalance(group)

    def _reset_and_propagate_assignment_error(self, group: ClassicGroup, error: ErrorCode) -> None:
        for member in group.members.values():
            member.assignment = b""
        self._propagate_assignment(group, error)

    def _propagate_assignment(self, group: ClassicGroup, error: ErrorCode) -> None:
        for member in group.members.values():
            if member.awaiting_sync:
                member.complete_sync(SyncResult(error, group.protocol_type, group.protocol_name, member.assignment))
                self.schedule_heartbeat(group, member)

    async def store_group(self, group: ClassicGroup, assignment: dict[str, bytes]) -> None:
        """Append the group's metadata with this assignment; raises CoordinatorLogError."""
        await self.rt.append(group.group_id, [group_record(group, assignment)])

    async def store_empty_group(self, group: ClassicGroup) -> ErrorCode:
        """Append the empty generation; what a LeaveGroup waiting for it answers."""
        try:
            await self.store_group(group, {})
        except CoordinatorLogError as exc:
            log.warning("failed to write the empty generation", group=group.group_id, error=exc.error.name)
            return exc.client_error(LEAVE_GROUP)
        return ErrorCode.NONE

    async def complete_leader_sync(self, group: ClassicGroup, generation: int, assignment: dict[str, bytes]) -> None:
        """Persist the leader's assignment, then hand every member its share."""
        error = ErrorCode.NONE
        try:
            await self.store_group(group, assignment)
        except CoordinatorLogError as exc:
            error = exc.client_error(GROUP_METADATA)
            log.warning("group metadata append failed", group=group.group_id, error=exc.error.name, reason=str(exc))
        # Members may have joined or left meanwhile: only the same generation completes.
        if not (self.rt.current(group) and group.is_state(GroupState.COMPLETING_REBALANCE)
                and group.generation_id == generation):
            return
        if error is not ErrorCode.NONE:
            self._reset_and_propagate_assignment_error(group, error)
            self.maybe_prepare_rebalance(group)
            return
        for member in group.members.values():
            member.assignment = assignment.get(member.member_id, b"")
        self._propagate_assignment(group, ErrorCode.NONE)
        group.transition_to(GroupState.STABLE, self.rt.clock.now_ms())
