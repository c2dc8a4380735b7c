"""ShareGroupHeartbeat as Kafka's group coordinator answers it (KIP-932, heartbeats as
KIP-848): join with epoch 0, leave with -1, otherwise the member's current epoch. Share
groups have no revocation step (partitions may be shared), so a member moves to the
assignment epoch and gets its target assignment at its next heartbeat.

Sans-I/O and in memory: session timeouts run on the injected clock; the caller makes the
group durable in `__consumer_offsets` before answering (`coordinator/share/coordinator.py`,
`membership_store.py`)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from coordinator.share.assignor import TopicPartition
from coordinator.share.group import ShareGroup, ShareMember, ShareTopic
from protocol.errors import ErrorCode
from storage.clock import Clock

JOIN_EPOCH = 0
LEAVE_EPOCH = -1

DEFAULT_SESSION_TIMEOUT_MS = 45_000  # group.share.session.timeout.ms
DEFAULT_HEARTBEAT_INTERVAL_MS = 5_000  # group.share.heartbeat.interval.ms
DEFAULT_MAX_SIZE = 200  # group.share.max.size


@dataclass(frozen=True)
class ShareMembershipConfig:
    session_timeout_ms: int = DEFAULT_SESSION_TIMEOUT_MS
    heartbeat_interval_ms: int = DEFAULT_HEARTBEAT_INTERVAL_MS
    max_size: int = DEFAULT_MAX_SIZE


@dataclass(frozen=True)
class ShareHeartbeat:
    group_id: str
    member_id: str
    member_epoch: int
    rack_id: str | None = None
    # None: unchanged since the last heartbeat.
    subscribed_topic_names: list[str] | None = None
    client_id: str = ""
    client_host: str = ""


@dataclass(frozen=True)
class ShareHeartbeatResult:
    error: ErrorCode = ErrorCode.NONE
    error_message: str | None = None
    member_id: str | None = None
    member_epoch: int = 0
    heartbeat_interval_ms: int = 0
    # topic id -> partitions; None when the member's assignment did not change.
    assignment: dict[uuid.UUID, list[int]] | None = None


def _error(error: ErrorCode, message: str | None = None) -> ShareHeartbeatResult:
    return ShareHeartbeatResult(error=error, error_message=message)


class ShareGroupMembership:
    """The share groups of one coordinator, by group id."""

    def __init__(
        self,
        clock: Clock,
        config: ShareMembershipConfig | None = None,
        *,
        on_member_removed: Callable[[str, str], None] | None = None,
    ) -> None:
        self._clock = clock
        self.config = config or ShareMembershipConfig()
        self.groups: dict[str, ShareGroup] = {}
        # (group id, member id): the broker releases the member's acquired records.
        self._on_member_removed = on_member_removed

    def heartbeat(self, req: ShareHeartbeat, topics: Mapping[str, ShareTopic]) -> ShareHeartbeatResult:
        invalid = _validate(req)
        if invalid is not None:
            return invalid
        group = self.groups.get(req.group_id)
        if req.member_epoch == LEAVE_EPOCH:
            if group is None or req.member_id not in group.members:
                return _error(ErrorCode.UNKNOWN_MEMBER_ID, f"member {req.member_id} is not in the group")
            self._remove(group, req.member_id)
            return ShareHeartbeatResult(member_id=req.member_id, member_epoch=LEAVE_EPOCH)

        member = group.members.get(req.member_id) if group is not None else None
        bump = False
        if req.member_epoch == JOIN_EPOCH:
            if member is None:
                if group is not None and len(group.members) >= self.config.max_size:
                    return _error(ErrorCode.GROUP_MAX_SIZE_REACHED, f"the group has {self.config.max_size} members")
                if group is None:
                    group = self.groups[req.group_id] = ShareGroup(req.group_id)
                member = ShareMember(req.member_id, req.client_id, req.client_host)
                group.add(member)
                bump = True
            else:
                # A rejoin: the member starts over from epoch 0 and is sent its assignment.
                member.member_epoch = JOIN_EPOCH
                member.assignment = frozenset()
        elif group is None or member is None:
            return _error(ErrorCode.UNKNOWN_MEMBER_ID, f"member {req.member_id} is not in the group")
        elif req.member_epoch != member.member_epoch:
            return _error(
                ErrorCode.FENCED_MEMBER_EPOCH,
                f"epoch {req.member_epoch} is not the member's current epoch {member.member_epoch}",
            )
        if group is None:  # unreachable: a member was found or created above
            return _error(ErrorCode.UNKNOWN_SERVER_ERROR)

        if req.rack_id is not None:
            member.rack_id = req.rack_id
        if req.subscribed_topic_names is not None:
            subscribed = frozenset(req.subscribed_topic_names)
            if subscribed != member.subscribed_topics:
                member.subscribed_topics = subscribed
                bump = True
        if bump or group.topics_changed(topics):
            group.bump_epoch()
        group.update_target(topics)
        self._touch(group, member)

        assignment: dict[uuid.UUID, list[int]] | None = None
        target = group.target.get(member.member_id, frozenset())
        if member.member_epoch != group.assignment_epoch or req.member_epoch == JOIN_EPOCH:
            changed = target != member.assignment or req.member_epoch == JOIN_EPOCH
            if member.member_epoch != group.assignment_epoch:
                member.previous_member_epoch = member.member_epoch
            member.member_epoch = group.assignment_epoch
            member.assignment = target
            if changed:
                assignment = _by_topic_id(target, topics)
        return ShareHeartbeatResult(
            member_id=member.member_id,
            member_epoch=member.member_epoch,
            heartbeat_interval_ms=self.config.heartbeat_interval_ms,
            assignment=assignment,
        )

    def install(self, group_id: str, group: ShareGroup | None) -> None:
        """Put `group` (loaded or restored from the log; None: no such group) in place of what
        is served under `group_id`; its members' sessions start now, as Kafka re-arms them
        when it loads a group."""
        old = self.groups.pop(group_id, None)
        if old is not None:
            for member in old.members.values():
                if member.session_timer is not None:
                    member.session_timer.cancel()
        if group is None:
            return
        self.groups[group_id] = group
        for member in group.members.values():
            self._touch(group, member)

    def _touch(self, group: ShareGroup, member: ShareMember) -> None:
        if member.session_timer is not None:
            member.session_timer.cancel()
        group_id, member_id = group.group_id, member.member_id
        member.session_timer = self._clock.call_later(
            self.config.session_timeout_ms, lambda: self._expire(group_id, member_id)
        )

    def _expire(self, group_id: str, member_id: str) -> None:
        group = self.groups.get(group_id)
        if group is not None and member_id in group.members:
            self._remove(group, member_id)

    def _remove(self, group: ShareGroup, member_id: str) -> None:
        group.remove(member_id)
        if self._on_member_removed is not None:
            self._on_member_removed(group.group_id, member_id)


def _validate(req: ShareHeartbeat) -> ShareHeartbeatResult | None:
    if not req.group_id:
        return _error(ErrorCode.INVALID_REQUEST, "GroupId can't be empty.")
    if not req.member_id:
        return _error(ErrorCode.INVALID_REQUEST, "MemberId can't be empty.")
    if req.member_epoch < LEAVE_EPOCH:
        return _error(ErrorCode.INVALID_REQUEST, f"MemberEpoch {req.member_epoch} is invalid.")
    if req.member_epoch == JOIN_EPOCH and not req.subscribed_topic_names:
        return _error(ErrorCode.INVALID_REQUEST, "SubscribedTopicNames must be set in first request.")
    return None


def _by_topic_id(assignment: frozenset[TopicPartition], topics: Mapping[str, ShareTopic]) -> dict[uuid.UUID, list[int]]:
    out: dict[uuid.UUID, list[int]] = {}
    for topic, index in sorted(assignment):
        if topic in topics:
            out.setdefault(topics[topic].topic_id, []).append(index)
    return out
