"""One classic group and its members (Kafka's GroupMetadata / MemberMetadata)."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass

from coordinator.group.api import JoinResult, SyncResult
from coordinator.group.classic.states import GroupState, check_transition, is_valid_transition
from coordinator.group.offsets import OffsetStore
from protocol.errors import ErrorCode
from protocol.messages.consumer_protocol_subscription import ConsumerProtocolSubscription

CONSUMER_PROTOCOL_TYPE = "consumer"


@dataclass(eq=False)
class Member:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    protocol_type: str
    protocols: list[tuple[str, bytes]]
    assignment: bytes = b""
    is_new: bool = False
    join_future: asyncio.Future[JoinResult] | None = None
    sync_future: asyncio.Future[SyncResult] | None = None

    @property
    def awaiting_join(self) -> bool:
        return self.join_future is not None

    @property
    def awaiting_sync(self) -> bool:
        return self.sync_future is not None

    @property
    def is_static(self) -> bool:
        return self.group_instance_id is not None

    def protocol_names(self) -> list[str]:
        return [name for name, _ in self.protocols]

    def metadata(self, protocol: str) -> bytes:
        for name, metadata in self.protocols:
            if name == protocol:
                return metadata
        raise KeyError(protocol)

    def matches(self, protocols: list[tuple[str, bytes]]) -> bool:
        return self.protocols == protocols

    def vote(self, candidates: set[str]) -> str:
        """The member's most preferred protocol among those every member supports."""
        for name, _ in self.protocols:
            if name in candidates:
                return name
        raise ValueError(f"member {self.member_id} supports none of {candidates}")

    def has_satisfied_heartbeat(self) -> bool:
        """Asked when its session timer fires: members waiting in a rebalance are exempt,
        new members (still in their first JoinGroup) are not."""
        if self.is_new:
            return False
        return self.awaiting_join or self.awaiting_sync

    def complete_join(self, result: JoinResult) -> None:
        if self.join_future is not None:
            if not self.join_future.done():
                self.join_future.set_result(result)
            self.join_future = None

    def complete_sync(self, result: SyncResult) -> None:
        if self.sync_future is not None:
            if not self.sync_future.done():
                self.sync_future.set_result(result)
            self.sync_future = None


@dataclass(slots=True)
class InitialJoin:
    """Kafka's InitialDelayedJoin: wait for more members before the first rebalance."""

    delay_ms: int
    remaining_ms: int


@dataclass(slots=True)
class DelayedJoin:
    """Kafka's DelayedJoin: complete once every member has rejoined, or at the rebalance
    timeout."""


# The rebalance in progress while PreparingRebalance.
RebalanceOp = InitialJoin | DelayedJoin


class ClassicGroup:
    def __init__(self, group_id: str, now_ms: int, state: GroupState = GroupState.EMPTY) -> None:
        self.group_id = group_id
        self.state = state
        self.generation_id = 0
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None
        self.leader_id: str | None = None
        self.members: dict[str, Member] = {}
        self.static_members: dict[str, str] = {}
        self.pending_members: set[str] = set()
        self.pending_sync_members: set[str] = set()
        self.supported_protocols: Counter[str] = Counter()
        self.new_member_added = False
        self.current_state_timestamp: int | None = now_ms
        self.subscribed_topics: set[str] | None = None
        self.offsets = OffsetStore()
        self.join_op: RebalanceOp | None = None
        # The append of the last empty generation (the group emptied by a rebalance): a
        # LeaveGroup that emptied it is answered once it is in the log.
        self.empty_generation_write: asyncio.Task[ErrorCode] | None = None

    # --- state ------------------------------------------------------------------------

    def is_state(self, state: GroupState) -> bool:
        return self.state is state

    def transition_to(self, target: GroupState, now_ms: int) -> None:
        check_transition(self.state, target)
        self.state = target
        self.current_state_timestamp = now_ms

    def can_rebalance(self) -> bool:
        return is_valid_transition(self.state, GroupState.PREPARING_REBALANCE)

    # --- members ----------------------------------------------------------------------

    def has(self, member_id: str) -> bool:
        return member_id in self.members

    def get(self, member_id: str) -> Member:
        return self.members[member_id]

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id == member_id

    def is_pending_member(self, member_id: str) -> bool:
        return member_id in self.pending_members

    def current_static_member_id(self, instance_id: str) -> str | None:
        return self.static_members.get(instance_id)

    def is_static_member_fenced(self, instance_id: str | None, member_id: str) -> bool:
        if instance_id is None:
            return False
        current = self.static_members.get(instance_id)
        return current is not None and current != member_id

    def validate_member(self, member_id: str, instance_id: str | None) -> ErrorCode | None:
        """Whether the request comes from this current member (static ones by instance id)."""
        if instance_id is not None:
            current = self.static_members.get(instance_id)
            if current is None:
                return ErrorCode.UNKNOWN_MEMBER_ID
            if current != member_id:
                return ErrorCode.FENCED_INSTANCE_ID
        if member_id not in self.members:
            return ErrorCode.UNKNOWN_MEMBER_ID
        return None

    @property
    def num_awaiting_join(self) -> int:
        return sum(1 for m in self.members.values() if m.awaiting_join)

    def has_all_members_joined(self) -> bool:
        return len(self.members) == self.num_awaiting_join and not self.pending_members

    def not_yet_rejoined(self) -> list[Member]:
        return [m for m in self.members.values() if not m.awaiting_join]

    def add(self, member: Member, future: asyncio.Future[JoinResult] | None) -> None:
        if not self.members:
            self.protocol_type = member.protocol_type
        self.members[member.member_id] = member
        if self.leader_id is None:
            self.leader_id = member.member_id
        for name in member.protocol_names():
            self.supported_protocols[name] += 1
        member.join_future = future
        self.pending_members.discard(member.member_id)
        if member.group_instance_id is not None:
            self.static_members[member.group_instance_id] = member.member_id

    def remove(self, member_id: str) -> Member | None:
        member = self.members.pop(member_id, None)
        if member is None:
            return None
        for name in member.protocol_names():
            self.supported_protocols[name] -= 1
            if self.supported_protocols[name] <= 0:
                del self.supported_protocols[name]
        if member.group_instance_id is not None and self.static_members.get(member.group_instance_id) == member_id:
            del self.static_members[member.group_instance_id]
        self.pending_sync_members.discard(member_id)
        if self.leader_id == member_id:
            self.leader_id = next(iter(self.members), None)
        return member

    def update_member(
        self, member: Member, protocols: list[tuple[str, bytes]], rebalance_timeout_ms: int, session_timeout_ms: int,
        future: asyncio.Future[JoinResult] | None,
    ) -> None:
        for name in member.protocol_names():
            self.supported_protocols[name] -= 1
            if self.supported_protocols[name] <= 0:
                del self.supported_protocols[name]
        for name, _ in protocols:
            self.supported_protocols[name] += 1
        member.protocols = protocols
        member.rebalance_timeout_ms = rebalance_timeout_ms
        member.session_timeout_ms = session_timeout_ms
        if future is not None:
            # A retried JoinGroup supersedes the one still waiting.
            if member.join_future is not None and member.join_future is not future:
                member.complete_join(JoinResult(ErrorCode.REBALANCE_IN_PROGRESS, member.member_id))
            member.join_future = future

    def replace_static_member(self, instance_id: str, old_member_id: str, new_member_id: str) -> Member:
        """KIP-345: a known instance rejoining without its member id takes over the old
        member; requests still waiting under the old id are fenced."""
        member = self.members.pop(old_member_id)
        member.complete_join(JoinResult(ErrorCode.FENCED_INSTANCE_ID, old_member_id))
        member.complete_sync(SyncResult(ErrorCode.FENCED_INSTANCE_ID))
        member.member_id = new_member_id
        self.members[new_member_id] = member
        if self.leader_id == old_member_id:
            self.leader_id = new_member_id
        self.static_members[instance_id] = new_member_id
        if old_member_id in self.pending_sync_members:
            self.pending_sync_members.discard(old_member_id)
            self.pending_sync_members.add(new_member_id)
        return member

    def maybe_elect_new_joined_leader(self) -> bool:
        if self.leader_id is None:
            return False
        leader = self.members.get(self.leader_id)
        if leader is not None and leader.awaiting_join:
            return True
        for member in self.members.values():
            if member.awaiting_join:
                self.leader_id = member.member_id
                return True
        return False

    # --- protocols --------------------------------------------------------------------

    def candidate_protocols(self) -> set[str]:
        n = len(self.members)
        return {name for name, count in self.supported_protocols.items() if count == n}

    def select_protocol(self) -> str:
        """The protocol every member supports with the most votes (Kafka's selectProtocol);
        ties go to the one voted for first."""
        candidates = self.candidate_protocols()
        votes = Counter(m.vote(candidates) for m in self.members.values())
        return max(votes, key=lambda name: votes[name])

    def supports_protocols(self, protocol_type: str, protocols: list[tuple[str, bytes]]) -> bool:
        if self.is_state(GroupState.EMPTY):
            return bool(protocol_type) and bool(protocols)
        n = len(self.members)
        return self.protocol_type == protocol_type and any(
            self.supported_protocols[name] == n for name, _ in protocols
        )

    @property
    def rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    def current_member_metadata(self) -> list[tuple[str, str | None, bytes]]:
        if self.protocol_name is None:
            return []
        return [(m.member_id, m.group_instance_id, m.metadata(self.protocol_name)) for m in self.members.values()]

    def compute_subscribed_topics(self) -> set[str] | None:
        """Topics the consumers subscribe to, when every member's metadata can be read."""
        if self.protocol_type != CONSUMER_PROTOCOL_TYPE or self.protocol_name is None:
            return None
        topics: set[str] = set()
        for member in self.members.values():
            parsed = parse_subscription(member.metadata(self.protocol_name))
            if parsed is None:
                return None
            topics.update(parsed)
        return topics

    def is_subscribed_to_topic(self, topic: str) -> bool:
        return self.subscribed_topics is not None and topic in self.subscribed_topics

    def init_next_generation(self, now_ms: int) -> None:
        self.generation_id += 1
        if self.members:
            self.protocol_name = self.select_protocol()
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(GroupState.COMPLETING_REBALANCE, now_ms)
        else:
            self.protocol_name = None
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(GroupState.EMPTY, now_ms)
        self.pending_sync_members.clear()


def decode_subscription(metadata: bytes) -> ConsumerProtocolSubscription | None:
    """A ConsumerProtocolSubscription (int16 version + struct), None if unreadable."""
    if len(metadata) < 2:
        return None
    version = int.from_bytes(metadata[:2], "big", signed=True)
    if version < 0:
        return None
    try:
        return ConsumerProtocolSubscription.decode(metadata[2:], min(version, ConsumerProtocolSubscription.MAX_VERSION))
    except Exception:
        return None


def parse_subscription(metadata: bytes) -> list[str] | None:
    """Topics of a ConsumerProtocolSubscription, None if unreadable."""
    sub = decode_subscription(metadata)
    return None if sub is None else list(sub.topics)
