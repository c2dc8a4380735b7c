"""A KIP-848 consumer group's state (Kafka's ConsumerGroup and ConsumerGroupMember): the
group epoch, the target assignment and its epoch, the members with their epochs and
assignments, and which member owns each partition."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from coordinator.group.consumer.assignors import Partition
from coordinator.group.consumer.reconciliation import MemberAssignment, MemberState
from protocol.errors import ErrorCode

# The epoch of a static member that left meaning to come back (Kafka's
# LEAVE_GROUP_STATIC_MEMBER_EPOCH).
STATIC_LEAVE_EPOCH = -2
LEAVE_EPOCH = -1


class ConsumerGroupState(Enum):
    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"


@dataclass(frozen=True, slots=True)
class TopicImage:
    topic_id: uuid.UUID
    num_partitions: int
    internal: bool = False


@dataclass(frozen=True, slots=True)
class ClassicMetadata:
    """What a member speaking the classic protocol (JoinGroup/SyncGroup/Heartbeat) joined
    with (Kafka's ClassicMemberMetadata)."""

    session_timeout_ms: int
    protocols: tuple[tuple[str, bytes], ...]

    @property
    def protocol_name(self) -> str:
        """The protocol it is answered with: its first choice, as Kafka does."""
        return self.protocols[0][0]


@dataclass(slots=True)
class ConsumerMember:
    member_id: str
    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    rebalance_timeout_ms: int = 300_000
    subscribed_topic_names: tuple[str, ...] = ()
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    assignment: MemberAssignment = field(default_factory=MemberAssignment)
    # A static member that left with epoch -2: its partitions wait for its return.
    static_left: bool = False
    # Set for a member of the classic protocol in a mixed group.
    classic: ClassicMetadata | None = None

    @property
    def member_epoch(self) -> int:
        return STATIC_LEAVE_EPOCH if self.static_left else self.assignment.member_epoch

    def copy(self) -> ConsumerMember:
        """The member as it is now (its fields are immutable values); far cheaper than
        `copy.copy`, which snapshots call for every member on every write."""
        return ConsumerMember(
            self.member_id, self.instance_id, self.rack_id, self.client_id, self.client_host,
            self.rebalance_timeout_ms, self.subscribed_topic_names, self.subscribed_topic_regex,
            self.server_assignor, self.assignment, self.static_left, self.classic)

    def subscribed_topics(self, regex_topics: Mapping[str, frozenset[str]]) -> frozenset[str]:
        """Named topics plus the topics its regex resolved to (`ConsumerGroup.resolved_regexes`)."""
        topics = frozenset(self.subscribed_topic_names)
        if self.subscribed_topic_regex:
            topics |= regex_topics.get(self.subscribed_topic_regex, frozenset())
        return topics


@dataclass(slots=True)
class ConsumerGroup:
    group_id: str
    group_epoch: int = 0
    assignment_epoch: int = 0
    members: dict[str, ConsumerMember] = field(default_factory=dict)
    target: dict[str, frozenset[Partition]] = field(default_factory=dict)
    # Partition -> member holding it (assigned or being revoked).
    owners: dict[Partition, str] = field(default_factory=dict)
    # Partition counts of the subscribed topics the target was computed from; None after a
    # load (not stored): the first heartbeat adopts the current counts.
    subscription_metadata: dict[str, int] | None = field(default_factory=dict)
    static_members: dict[str, str] = field(default_factory=dict)
    assignor_name: str = ""
    # Kafka's resolved regular expressions (GroupMetadataManager.refreshRegularExpressions):
    # regex -> (the existing topics it matches, those of them the principal of the request
    # that resolved it may DESCRIBE). Not in the log: resolved again after a load.
    resolved_regexes: dict[str, tuple[frozenset[str], frozenset[str]]] = field(default_factory=dict)

    def regex_topics(self) -> dict[str, frozenset[str]]:
        return {regex: authorized for regex, (_, authorized) in self.resolved_regexes.items()}

    def state(self) -> ConsumerGroupState:
        if not self.members:
            return ConsumerGroupState.EMPTY
        if self.group_epoch > self.assignment_epoch:
            return ConsumerGroupState.ASSIGNING
        for m in self.members.values():
            if m.assignment.member_epoch != self.assignment_epoch or m.assignment.state is not MemberState.STABLE:
                return ConsumerGroupState.RECONCILING
        return ConsumerGroupState.STABLE

    def subscribed_topic_names(self) -> set[str]:
        """Kafka's ConsumerGroup.subscribedTopicNames: the names the members subscribe to,
        and the topics their regexes matched when the target was last computed."""
        names = {name for m in self.members.values() for name in m.subscribed_topic_names}
        if any(m.subscribed_topic_regex for m in self.members.values()):
            names.update(self.subscription_metadata or {})
        return names

    def classic_only(self) -> bool:
        """Members left, all of the classic protocol: the group may become classic again."""
        return bool(self.members) and all(m.classic is not None for m in self.members.values())

    def waiting_on_unreleased(self, member: ConsumerMember) -> bool:
        """Whether a partition of its target is still held by another member."""
        return any(self.owners.get(tp) not in (None, member.member_id)
                   for tp in self.target.get(member.member_id, frozenset()) - member.assignment.assigned)

    def bump_epoch(self) -> None:
        self.group_epoch += 1

    def owner_of(self, tp: Partition) -> str | None:
        return self.owners.get(tp)

    def set_assignment(self, member: ConsumerMember, assignment: MemberAssignment) -> None:
        for tp in member.assignment.assigned | member.assignment.pending_revocation:
            if self.owners.get(tp) == member.member_id:
                del self.owners[tp]
        member.assignment = assignment
        for tp in assignment.assigned | assignment.pending_revocation:
            self.owners[tp] = member.member_id

    def add(self, member: ConsumerMember) -> None:
        self.members[member.member_id] = member
        if member.instance_id is not None:
            self.static_members[member.instance_id] = member.member_id
        for tp in member.assignment.assigned | member.assignment.pending_revocation:
            self.owners[tp] = member.member_id

    def remove(self, member_id: str) -> ConsumerMember | None:
        member = self.members.pop(member_id, None)
        if member is None:
            return None
        for tp in member.assignment.assigned | member.assignment.pending_revocation:
            if self.owners.get(tp) == member_id:
                del self.owners[tp]
        if member.instance_id is not None and self.static_members.get(member.instance_id) == member_id:
            del self.static_members[member.instance_id]
        self.target.pop(member_id, None)
        return member

    def validate_offset_commit(
        self, member_id: str, member_epoch: int, api_version: int | None,
        instance_id: str | None = None, transactional: bool = False,
    ) -> ErrorCode | None:
        """Kafka's ConsumerGroup.validateOffsetCommit: without a member epoch only an empty
        group takes commits; a member commits at its current epoch, with OffsetCommit v9+
        unless it speaks the classic protocol. A TxnOffsetCommit without member fields is
        not checked, and its stale epoch is ILLEGAL_GENERATION (OffsetMetadataManager)."""
        if member_epoch < 0 and not self.members:
            return None
        if transactional and member_epoch == -1 and member_id == "" and instance_id is None:
            return None
        member = self.members.get(member_id)
        if member is None:
            return ErrorCode.UNKNOWN_MEMBER_ID
        if not transactional and api_version is not None and api_version < 9 and member.classic is None:
            return ErrorCode.UNSUPPORTED_VERSION
        error = self._check_epoch(member, member_epoch)
        return ErrorCode.ILLEGAL_GENERATION if transactional and error is not None else error

    @staticmethod
    def _check_epoch(member: ConsumerMember, epoch: int) -> ErrorCode | None:
        """Kafka's validateMemberEpoch: a classic member's generation is its epoch."""
        if epoch == member.member_epoch:
            return None
        return ErrorCode.ILLEGAL_GENERATION if member.classic is not None else ErrorCode.STALE_MEMBER_EPOCH

    def validate_offset_fetch(self, member_id: str | None, member_epoch: int) -> ErrorCode | None:
        """Kafka's ConsumerGroup.validateOffsetFetch: a fetch without member id and epoch
        (admin clients, OffsetFetch before v9) is answered; a member's at its current epoch."""
        if member_id is None and member_epoch < 0:
            return None
        member = self.members.get(member_id) if member_id is not None else None
        if member is None:
            return ErrorCode.UNKNOWN_MEMBER_ID
        return self._check_epoch(member, member_epoch)
