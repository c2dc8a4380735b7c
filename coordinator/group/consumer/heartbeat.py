"""ConsumerGroupHeartbeat (KIP-848; Kafka's GroupMetadataManager.consumerGroupHeartbeat):
join, leave, epochs, the target assignment and the member's next reconciliation step.
Sessions and rebalance timeouts are named timers of the injected clock."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, replace

import structlog

from coordinator.group.api import TopicFilter
from coordinator.group.classic.group import ClassicGroup
from coordinator.group.classic.states import GroupState
from coordinator.group.consumer import records as consumer_records
from coordinator.group.consumer.assignors import ASSIGNORS, AssignorMember, Partition
from coordinator.group.consumer.group import (
    LEAVE_EPOCH,
    STATIC_LEAVE_EPOCH,
    ConsumerGroup,
    ConsumerMember,
    TopicImage,
)
from coordinator.group.consumer.ports import ConsumerRuntime
from coordinator.group.consumer.reconciliation import MemberAssignment, MemberState, reconcile
from coordinator.group.timers import RETRY_BACKOFF_MS, consumer_revocation_key, consumer_session_key
from coordinator.log import AppendErrorPolicy, CoordinatorLogError, Record
from protocol.errors import ErrorCode

log = structlog.get_logger("odradek.groups")

# Kafka's coordinator runtime answers a failed write of the new protocol so (its
# GroupCoordinatorService.normalizeException), and the classic protocol's writes to a
# consumer group too.
CONSUMER_GROUP_HEARTBEAT = AppendErrorPolicy(ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.UNKNOWN_SERVER_ERROR)


@dataclass(frozen=True, slots=True)
class ConsumerHeartbeat:
    group_id: str
    member_id: str
    member_epoch: int
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    subscribed_topic_names: list[str] | None = None
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    # What the member owns, by topic id (None: unchanged since the last heartbeat).
    owned: dict[uuid.UUID, list[int]] | None = None
    client_id: str = ""
    client_host: str = ""
    # Filters the topics the group's regexes match (None: every topic).
    describable: TopicFilter | None = None


@dataclass(frozen=True, slots=True)
class ConsumerHeartbeatResult:
    error: ErrorCode
    message: str | None = None
    member_id: str | None = None
    member_epoch: int = 0
    heartbeat_interval_ms: int = 0
    # By topic id; None when the member's assignment need not be sent.
    assignment: dict[uuid.UUID, list[int]] | None = None


def _error(error: ErrorCode, message: str | None = None) -> ConsumerHeartbeatResult:
    return ConsumerHeartbeatResult(error, message)


def _resolve_regexes(group: ConsumerGroup, topics: Mapping[str, TopicImage], describable: TopicFilter | None) -> None:
    """Kafka's refreshRegularExpressions: a regex resolves to the existing topics it matches
    (RE2/J `matches`: the whole name; Python's `re` covers the syntax clients use) that the
    principal of the request resolving it may DESCRIBE (filterTopicDescribeAuthorizedTopics).
    Resolved again only when a regex is new or what it matches changed, as Kafka refreshes
    on new regexes and new topics, so that members of other principals do not undo it."""
    regexes = {m.subscribed_topic_regex for m in group.members.values() if m.subscribed_topic_regex}
    if not regexes and not group.resolved_regexes:
        return
    names = [t for t, image in topics.items() if not image.internal]
    resolved: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    for regex in regexes:
        pattern = re.compile(regex)
        matched = frozenset(t for t in names if pattern.fullmatch(t))
        previous = group.resolved_regexes.get(regex)
        if previous is not None and previous[0] == matched:
            resolved[regex] = previous
        else:
            resolved[regex] = (matched, matched if describable is None else frozenset(describable(matched)))
    group.resolved_regexes = resolved


class ConsumerHeartbeatHandler:
    def __init__(self, rt: ConsumerRuntime) -> None:
        self.rt = rt
        # The records of the state changes made by the call in progress (calls do not
        # interleave: nothing here awaits); the caller returns them to `GroupRuntime.write`,
        # which appends them before answering.
        self._outbox: list[Record] = []
        # A static member's target moved to its new member id in the call in progress.
        self._target_moved = False
        # Conversions between the protocols need the classic side; the coordinator sets them
        # (`coordinator/group/conversion.py`). upgrade: records, or None when refused;
        # downgrade: records, none when refused.
        self.upgrade: Callable[[ClassicGroup, Mapping[str, TopicImage]], list[Record] | None] | None = None
        self.downgrade: Callable[[ConsumerGroup], list[Record]] | None = None

    def take_records(self) -> list[Record]:
        records, self._outbox = self._outbox, []
        self._target_moved = False
        return records

    # --- validation ------------------------------------------------------------------------

    def _validate(self, req: ConsumerHeartbeat) -> ConsumerHeartbeatResult | None:
        """Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid."""
        if not req.member_id:
            return _error(ErrorCode.INVALID_REQUEST, "MemberId can't be empty.")
        if req.member_epoch < STATIC_LEAVE_EPOCH:
            return _error(ErrorCode.INVALID_REQUEST, "MemberEpoch is invalid.")
        if req.member_epoch == STATIC_LEAVE_EPOCH and req.instance_id is None:
            return _error(ErrorCode.INVALID_REQUEST, "InstanceId can't be null.")
        if req.member_epoch == 0:
            if req.rebalance_timeout_ms == -1:
                return _error(ErrorCode.INVALID_REQUEST, "RebalanceTimeoutMs must be provided in first request.")
            if req.subscribed_topic_names is None and req.subscribed_topic_regex is None:
                return _error(ErrorCode.INVALID_REQUEST,
                              "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.")
        if req.server_assignor is not None and req.server_assignor not in self._assignors():
            return _error(ErrorCode.UNSUPPORTED_ASSIGNOR, f"ServerAssignor {req.server_assignor} is not supported.")
        if req.subscribed_topic_regex:
            try:
                re.compile(req.subscribed_topic_regex)
            except re.error as exc:
                return _error(ErrorCode.INVALID_REGULAR_EXPRESSION, str(exc))
        return None

    def _assignors(self) -> tuple[str, ...]:
        return tuple(a for a in self.rt.config.consumer_assignors if a in ASSIGNORS) or ("uniform",)

    # --- the heartbeat ---------------------------------------------------------------------

    def heartbeat(self, req: ConsumerHeartbeat, topics: Mapping[str, TopicImage]) -> ConsumerHeartbeatResult:
        status = self.rt.validate(req.group_id, allow_empty=False)
        if status is not None:
            return _error(status)
        self.rt.learn_topics(topics)
        invalid = self._validate(req)
        if invalid is not None:
            return invalid
        if self.rt.share_group(req.group_id):  # Kafka's getOrMaybeCreateConsumerGroup
            return _error(ErrorCode.GROUP_ID_NOT_FOUND, f"Group {req.group_id} is not a consumer group.")
        classic = self.rt.groups.get(req.group_id)
        if classic is not None and not classic.is_state(GroupState.EMPTY) and not classic.is_state(GroupState.DEAD):
            # An empty classic group simply gives way (its offsets stay); one with members is
            # converted when a member joins and the migration policy allows it.
            converted = self.upgrade(classic, topics) if req.member_epoch == 0 and self.upgrade else None
            if converted is None:
                return _error(ErrorCode.GROUP_ID_NOT_FOUND, f"Group {req.group_id} is not a consumer group.")
            self._outbox.extend(converted)
        group = self.rt.consumer_groups.get(req.group_id)
        if req.member_epoch in (LEAVE_EPOCH, STATIC_LEAVE_EPOCH):
            return self._leave(group, req, topics)
        if group is None:
            if req.member_epoch != 0:
                return _error(ErrorCode.UNKNOWN_MEMBER_ID, f"Member {req.member_id} is not a member of the group.")
            group = ConsumerGroup(req.group_id)
            self.rt.consumer_groups[req.group_id] = group
        owned = self._owned_names(req.owned, topics)
        member, failure = self._member(group, req, owned)
        if member is None:
            assert failure is not None
            return failure
        # A returning static member takes its old place: only a new member counts as a change.
        joined = req.member_epoch == 0 and member.assignment.member_epoch == 0
        changed = self._update_member(member, req)
        before, after = self.advance(group, member, joined, changed, owned, topics, write=req.member_epoch == 0,
                                     describable=req.describable)
        send = req.member_epoch == 0 or after.assigned != before.assigned or (
            owned is not None and owned != after.assigned)
        return ConsumerHeartbeatResult(
            ErrorCode.NONE,
            member_id=member.member_id,
            member_epoch=after.member_epoch,
            heartbeat_interval_ms=self.rt.config.consumer_heartbeat_interval_ms,
            assignment=self._by_id(after.assigned, topics) if send else None,
        )

    def replace_static(self, group: ConsumerGroup, previous: ConsumerMember, member_id: str) -> ConsumerMember:
        """The static member is back under a new id: it takes over its partitions and
        epoch, so the group does not rebalance."""
        target = group.target.get(previous.member_id)
        group.remove(previous.member_id)
        self._outbox.extend(consumer_records.member_tombstones(group.group_id, previous.member_id))
        self.rt.cancel(consumer_session_key(group.group_id, previous.member_id))
        self.rt.cancel(consumer_revocation_key(group.group_id, previous.member_id))
        member = replace(previous, member_id=member_id, static_left=False)
        group.add(member)
        if target is not None:
            group.target[member.member_id] = target
            # Written anew under the new id by `advance`, as Kafka does for a replaced
            # static member (the old one's target went with its tombstones).
            self._target_moved = True
        return member

    def touch(self, group: ConsumerGroup, member: ConsumerMember) -> None:
        """A sign of life from a classic member: its session starts again."""
        self._schedule_session(group, member)

    def advance(
        self, group: ConsumerGroup, member: ConsumerMember, joined: bool, changed: bool,
        owned: frozenset[Partition] | None, topics: Mapping[str, TopicImage], write: bool,
        describable: TopicFilter | None = None,
    ) -> tuple[MemberAssignment, MemberAssignment]:
        """Kafka's steps after a member's update: bump the group epoch for a new member, a
        subscription change or new partitions; recompute the target if the epoch moved;
        reconcile the member. Returns its assignment before and after."""
        self.rt.learn_topics(topics)
        ids = {name: image.topic_id for name, image in topics.items()}
        _resolve_regexes(group, topics, describable)
        metadata_changed = self._refresh_metadata(group, topics)
        if metadata_changed or changed or joined:
            group.bump_epoch()
            log.debug("consumer group epoch bumped", group=group.group_id, epoch=group.group_epoch,
                      member=member.member_id, joined=joined, subscription=changed, metadata=metadata_changed)
            self._outbox.append(consumer_records.epoch_record(group))
        if group.group_epoch > group.assignment_epoch:
            self._assign(group, topics)
            self._outbox.extend(consumer_records.target_records(group, ids))
        elif self._target_moved:
            self._outbox.extend(consumer_records.target_records(group, ids))
        self._target_moved = False
        before = member.assignment
        target = group.target.get(member.member_id, frozenset())
        after = reconcile(member.member_id, before, group.assignment_epoch, target, group.owner_of, owned)
        if member.classic is not None and after.state is MemberState.UNREVOKED_PARTITIONS \
                and owned is not None and not owned & after.pending_revocation:
            # A classic member reports what it owns when it joins: what it gave up already
            # needs no second round.
            group.set_assignment(member, after)
            after = reconcile(member.member_id, after, group.assignment_epoch, target, group.owner_of, owned)
        group.set_assignment(member, after)
        if write or changed or after != before:
            self._outbox.extend(consumer_records.member_records(group.group_id, member, ids))
        self._schedule_timers(group, member)
        return before, after

    def _member(
        self, group: ConsumerGroup, req: ConsumerHeartbeat, owned: frozenset[Partition] | None
    ) -> tuple[ConsumerMember | None, ConsumerHeartbeatResult | None]:
        member = group.members.get(req.member_id)
        if req.member_epoch == 0:
            if req.instance_id is not None:
                previous_id = group.static_members.get(req.instance_id)
                previous = group.members.get(previous_id) if previous_id is not None else None
                if previous is not None and previous.member_id != req.member_id:
                    if not previous.static_left:
                        return None, _error(ErrorCode.UNRELEASED_INSTANCE_ID,
                                            f"Static member {previous_id} with instance id {req.instance_id} "
                                            "is not released.")
                    member = self.replace_static(group, previous, req.member_id)
                    member.client_id, member.client_host = req.client_id, req.client_host
                    return member, None
            if member is not None:
                # The member id is the client's own (KIP-1082): epoch 0 again from a known
                # member is a join retried, answered with its current state.
                return member, None
            if len(group.members) >= self.rt.config.consumer_max_size:
                return None, _error(ErrorCode.GROUP_MAX_SIZE_REACHED,
                                    f"The consumer group has reached its maximum capacity of "
                                    f"{self.rt.config.consumer_max_size} members.")
            member = ConsumerMember(req.member_id, instance_id=req.instance_id,
                                    client_id=req.client_id, client_host=req.client_host)
            group.add(member)
            return member, None
        if member is None:
            return None, _error(ErrorCode.UNKNOWN_MEMBER_ID, f"Member {req.member_id} is not a member of the group.")
        # Kafka's throwIfMemberEpochIsInvalid: a lower epoch is accepted only as the
        # previous one from a member that owns no more than it is assigned (a lost response).
        epoch = member.assignment.member_epoch
        if req.member_epoch > epoch:
            return None, _error(ErrorCode.FENCED_MEMBER_EPOCH,
                                f"The consumer group member has a greater member epoch ({req.member_epoch}) "
                                f"than the one known by the group coordinator ({epoch}).")
        lost_response = req.member_epoch == member.assignment.previous_member_epoch \
            and owned is not None and owned <= member.assignment.assigned
        if req.member_epoch < epoch and not lost_response:
            return None, _error(ErrorCode.FENCED_MEMBER_EPOCH,
                                f"The consumer group member has a smaller member epoch ({req.member_epoch}) "
                                f"than the one known by the group coordinator ({epoch}).")
        return member, None

    def _update_member(self, member: ConsumerMember, req: ConsumerHeartbeat) -> bool:
        """Apply what the heartbeat changed; True when the subscription did."""
        changed = False
        if req.rack_id is not None:
            member.rack_id = req.rack_id
        if req.rebalance_timeout_ms != -1:
            member.rebalance_timeout_ms = req.rebalance_timeout_ms
        if req.subscribed_topic_names is not None and tuple(sorted(req.subscribed_topic_names)) != \
                member.subscribed_topic_names:
            member.subscribed_topic_names = tuple(sorted(req.subscribed_topic_names))
            changed = True
        if req.subscribed_topic_regex is not None and (req.subscribed_topic_regex or None) != \
                member.subscribed_topic_regex:
            member.subscribed_topic_regex = req.subscribed_topic_regex or None
            changed = True
        if req.server_assignor is not None and req.server_assignor != member.server_assignor:
            member.server_assignor = req.server_assignor
            changed = True
        return changed

    def _refresh_metadata(self, group: ConsumerGroup, topics: Mapping[str, TopicImage]) -> bool:
        """A change in the subscribed topics' partitions (created, deleted, grown) bumps
        the group epoch, as Kafka's subscription metadata does."""
        regex_topics = group.regex_topics()
        subscribed: set[str] = set()
        for m in group.members.values():
            subscribed |= m.subscribed_topics(regex_topics)
        metadata = {t: topics[t].num_partitions for t in subscribed if t in topics}
        if metadata == group.subscription_metadata:
            return False
        adopted = group.subscription_metadata is None
        group.subscription_metadata = metadata
        return not adopted

    def _assign(self, group: ConsumerGroup, topics: Mapping[str, TopicImage]) -> None:
        """Kafka's TargetAssignmentBuilder: the most used member assignor, else the default."""
        regex_topics = group.regex_topics()
        chosen = [m.server_assignor for m in group.members.values() if m.server_assignor in ASSIGNORS]
        name = max(sorted(set(chosen)), key=chosen.count) if chosen else self._assignors()[0]
        specs = {
            m.member_id: AssignorMember(m.subscribed_topics(regex_topics), group.target.get(m.member_id, frozenset()))
            for m in group.members.values()
        }
        target = ASSIGNORS[name](specs, group.subscription_metadata or {})
        group.target = {m: frozenset(tps) for m, tps in target.items()}
        group.assignment_epoch = group.group_epoch
        group.assignor_name = name

    # --- leaving and timing out -----------------------------------------------------------

    def _leave(self, group: ConsumerGroup | None, req: ConsumerHeartbeat,
               topics: Mapping[str, TopicImage]) -> ConsumerHeartbeatResult:
        member = group.members.get(req.member_id) if group is not None else None
        if group is None or member is None:
            if req.member_epoch == STATIC_LEAVE_EPOCH and group is not None and req.instance_id is not None \
                    and req.instance_id in group.static_members:
                return _error(ErrorCode.FENCED_INSTANCE_ID, f"Instance id {req.instance_id} is in use.")
            return _error(ErrorCode.UNKNOWN_MEMBER_ID, f"Member {req.member_id} is not a member of the group.")
        if req.member_epoch == STATIC_LEAVE_EPOCH:
            # Kept with its assigned partitions until it returns or its session expires; what
            # it was revoking is free (Kafka's consumerGroupStaticMemberGroupLeave), and the
            # leave is in the log so that it outlives a restart.
            member.static_left = True
            group.set_assignment(member, replace(member.assignment, pending_revocation=frozenset()))
            self._outbox.append(consumer_records.current_assignment_record(
                group.group_id, member, {name: image.topic_id for name, image in topics.items()}))
            self.rt.cancel(consumer_revocation_key(group.group_id, member.member_id))
            self._schedule_session(group, member)
        else:
            self.remove(group, member.member_id)
        return ConsumerHeartbeatResult(ErrorCode.NONE, member_id=req.member_id, member_epoch=req.member_epoch,
                                       heartbeat_interval_ms=0)

    def remove(self, group: ConsumerGroup, member_id: str) -> None:
        """A member leaves or is fenced; a group left with classic members only may become
        classic again. As Kafka's consumerGroupFenceMember, the conversion takes the place
        of the epoch bump: the classic group's generation is the epoch its classic members
        hold, so their next heartbeat answers REBALANCE_IN_PROGRESS (they give their
        partitions up and rejoin) and not ILLEGAL_GENERATION (they would count them lost)."""
        removed = group.remove(member_id) is not None
        if removed:
            self._outbox.extend(consumer_records.member_tombstones(group.group_id, member_id))
        self.rt.cancel(consumer_session_key(group.group_id, member_id))
        self.rt.cancel(consumer_revocation_key(group.group_id, member_id))
        converted = self.downgrade(group) if group.classic_only() and self.downgrade is not None else []
        if converted:
            self._outbox.extend(converted)
        elif removed:
            group.bump_epoch()
            self._outbox.append(consumer_records.epoch_record(group))

    def _expire(self, group: ConsumerGroup, member_id: str, why: str, key: Hashable,
                due: Callable[[ConsumerMember], bool] = lambda _: True) -> None:
        """A timer fired: fence the member (if still `due` when the write runs) once its
        removal is in the log. If that append fails the member stays, and the timer tries
        again after a backoff, as Kafka's do."""

        def fence() -> tuple[list[Record], None]:
            member = group.members.get(member_id)
            # A write ahead of this one in the group's queue may have set the timer again
            # (a heartbeat): then the member is alive.
            if self.rt.timers.active(key):
                return [], None
            if self.rt.consumer_groups.get(group.group_id) is group and member is not None and due(member):
                log.info("consumer group member fenced", group=group.group_id, member=member_id, reason=why)
                self.remove(group, member_id)
            return self.take_records(), None

        def failed(exc: CoordinatorLogError) -> None:
            log.warning("fencing a consumer group member failed; retrying", group=group.group_id,
                        member=member_id, error=exc.error.name)
            self.rt.schedule(key, RETRY_BACKOFF_MS, lambda: self._expire(group, member_id, why, key, due))

        self.rt.spawn(self.rt.write(group.group_id, fence, failed))

    def loaded(self, groups: list[ConsumerGroup]) -> None:
        """Groups rebuilt from the log: every member's session starts now."""
        for group in groups:
            self.rt.consumer_groups[group.group_id] = group
            for member in group.members.values():
                self._schedule_session(group, member)

    def _schedule_session(self, group: ConsumerGroup, member: ConsumerMember) -> None:
        timeout = self.rt.config.consumer_session_timeout_ms if member.classic is None \
            else member.classic.session_timeout_ms
        key = consumer_session_key(group.group_id, member.member_id)
        member_id = member.member_id
        self.rt.schedule(key, timeout, lambda: self._expire(group, member_id, "session timeout", key))

    def _schedule_timers(self, group: ConsumerGroup, member: ConsumerMember) -> None:
        self._schedule_session(group, member)
        key = consumer_revocation_key(group.group_id, member.member_id)
        if member.assignment.state is MemberState.UNREVOKED_PARTITIONS:
            # Started once per revocation: the member has its rebalance timeout to let go.
            if not self.rt.timers.active(key):
                epoch = member.assignment.member_epoch
                self.rt.schedule(key, member.rebalance_timeout_ms,
                                 lambda: self._revocation_timeout(group, member.member_id, epoch))
        else:
            self.rt.cancel(key)

    def _revocation_timeout(self, group: ConsumerGroup, member_id: str, epoch: int) -> None:
        def due(member: ConsumerMember) -> bool:
            return member.assignment.state is MemberState.UNREVOKED_PARTITIONS \
                and member.assignment.member_epoch == epoch

        self._expire(group, member_id, "rebalance timeout", consumer_revocation_key(group.group_id, member_id), due)

    # --- topic ids ---------------------------------------------------------------------------

    @staticmethod
    def _owned_names(owned: dict[uuid.UUID, list[int]] | None,
                     topics: Mapping[str, TopicImage]) -> frozenset[Partition] | None:
        if owned is None:
            return None
        names = {image.topic_id: name for name, image in topics.items()}
        return frozenset((names[tid], p) for tid, ps in owned.items() if tid in names for p in ps)

    @staticmethod
    def _by_id(partitions: frozenset[Partition], topics: Mapping[str, TopicImage]) -> dict[uuid.UUID, list[int]]:
        out: dict[uuid.UUID, list[int]] = {}
        for name, p in sorted(partitions):
            if name in topics:
                out.setdefault(topics[name].topic_id, []).append(p)
        return out
