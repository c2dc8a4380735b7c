"""SyncGroup, Heartbeat and LeaveGroup: members of a group once they have joined."""

from __future__ import annotations

import asyncio

from coordinator.group.api import LeavingMember, MemberHeartbeat, SyncMember, SyncResult
from coordinator.group.classic.ports import ClassicRuntime
from coordinator.group.classic.rebalance import Rebalancer
from coordinator.group.classic.states import GroupState
from protocol.errors import ErrorCode


class MemberHandler:
    def __init__(self, rt: ClassicRuntime, rebalance: Rebalancer) -> None:
        self.rt = rt
        self.rebalance = rebalance

    async def sync_group(self, req: SyncMember) -> SyncResult:
        error = self.rt.validate(req.group_id, allow_empty=False)
        if error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
            # The rebalance state is lost while loading: have the member rejoin.
            return SyncResult(ErrorCode.REBALANCE_IN_PROGRESS)
        if error is not None:
            return SyncResult(error)
        group = self.rt.groups.get(req.group_id)
        if group is None:
            return SyncResult(ErrorCode.UNKNOWN_MEMBER_ID)
        if group.is_state(GroupState.DEAD):
            return SyncResult(ErrorCode.COORDINATOR_NOT_AVAILABLE)
        if group.is_static_member_fenced(req.group_instance_id, req.member_id):
            return SyncResult(ErrorCode.FENCED_INSTANCE_ID)
        if not group.has(req.member_id):
            return SyncResult(ErrorCode.UNKNOWN_MEMBER_ID)
        if req.generation_id != group.generation_id:
            return SyncResult(ErrorCode.ILLEGAL_GENERATION)
        if req.protocol_type is not None and group.protocol_type != req.protocol_type:
            return SyncResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL)
        if req.protocol_name is not None and group.protocol_name != req.protocol_name:
            return SyncResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL)
        member = group.get(req.member_id)
        if group.is_state(GroupState.EMPTY):
            return SyncResult(ErrorCode.UNKNOWN_MEMBER_ID)
        if group.is_state(GroupState.PREPARING_REBALANCE):
            return SyncResult(ErrorCode.REBALANCE_IN_PROGRESS)
        if group.is_state(GroupState.STABLE):
            group.pending_sync_members.discard(req.member_id)
            self.rebalance.schedule_heartbeat(group, member)
            return SyncResult(ErrorCode.NONE, group.protocol_type, group.protocol_name, member.assignment)
        # CompletingRebalance: wait for the leader's assignment. A member whose client
        # leaves meanwhile stays until its session expires, as in Kafka.
        fut: asyncio.Future[SyncResult] = asyncio.get_running_loop().create_future()
        member.complete_sync(SyncResult(ErrorCode.REBALANCE_IN_PROGRESS))
        member.sync_future = fut
        group.pending_sync_members.discard(req.member_id)
        if group.is_leader(req.member_id):
            assignment = {mid: req.assignments.get(mid, b"") for mid in group.members}
            self.rt.spawn(self.rebalance.complete_leader_sync(group, group.generation_id, assignment))
        return await fut

    def heartbeat(self, req: MemberHeartbeat) -> ErrorCode:
        error = self.rt.validate(req.group_id, allow_empty=False)
        if error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
            return ErrorCode.NONE  # Kafka answers blindly while loading
        if error is not None:
            return error
        group = self.rt.groups.get(req.group_id)
        if group is None:
            return ErrorCode.UNKNOWN_MEMBER_ID
        if group.is_state(GroupState.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if group.is_static_member_fenced(req.group_instance_id, req.member_id):
            return ErrorCode.FENCED_INSTANCE_ID
        if not group.has(req.member_id):
            return ErrorCode.UNKNOWN_MEMBER_ID
        if req.generation_id != group.generation_id:
            return ErrorCode.ILLEGAL_GENERATION
        if group.is_state(GroupState.EMPTY):
            return ErrorCode.UNKNOWN_MEMBER_ID
        self.rebalance.schedule_heartbeat(group, group.get(req.member_id))
        if group.is_state(GroupState.PREPARING_REBALANCE):
            return ErrorCode.REBALANCE_IN_PROGRESS
        return ErrorCode.NONE

    def leave_group(self, group_id: str, members: list[LeavingMember]) -> tuple[ErrorCode, list[ErrorCode]]:
        error = self.rt.validate(group_id, allow_empty=False)
        if error is not None:
            return error, []
        group = self.rt.groups.get(group_id)
        if group is None:
            return ErrorCode.NONE, [ErrorCode.UNKNOWN_MEMBER_ID for _ in members]
        if group.is_state(GroupState.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, []
        errors = []
        for leaving in members:
            member_id, instance_id = leaving.member_id, leaving.group_instance_id
            if member_id == "":
                current = group.current_static_member_id(instance_id) if instance_id is not None else None
                if current is None:
                    errors.append(ErrorCode.UNKNOWN_MEMBER_ID)
                else:
                    self.rebalance.remove_member_and_update_group(group, group.get(current))
                    errors.append(ErrorCode.NONE)
            elif group.is_pending_member(member_id):
                self.rebalance.remove_pending_member(group, member_id)
                errors.append(ErrorCode.NONE)
            else:
                member_error = group.validate_member(member_id, instance_id)
                if member_error is None:
                    self.rebalance.remove_member_and_update_group(group, group.get(member_id))
                    member_error = ErrorCode.NONE
                errors.append(member_error)
        return ErrorCode.NONE, errors
