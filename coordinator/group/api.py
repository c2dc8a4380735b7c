"""What the group coordinator is asked and what it answers: the request and result types
the API handlers build and read (`coordinator/group/coordinator.py` is the façade). They
name no group: `classic/` and `consumer/` build and read them, so they sit below both (the
administrative answers, which carry group states, are `coordinator/group/admin.py`'s)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from coordinator.group.offsets import OffsetAndMetadata
from protocol.errors import ErrorCode
from storage.topic_partition import TopicPartition

# --- membership -----------------------------------------------------------------------------

# The topics among these the request's principal may DESCRIBE (the broker's authorizer).
TopicFilter = Callable[[frozenset[str]], set[str]]


@dataclass(frozen=True, slots=True)
class JoinMember:
    group_id: str
    member_id: str
    group_instance_id: str | None
    # KIP-394: a dynamic member first gets its member id, then joins with it.
    require_known_member_id: bool
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    protocol_type: str
    protocols: list[tuple[str, bytes]]
    # Resolves a consumer group's regexes when the member joins one (Kafka's
    # classicGroupJoinToConsumerGroup); None: every topic.
    describable: TopicFilter | None = None


@dataclass(slots=True)
class JoinResult:
    error: ErrorCode
    member_id: str
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader_id: str = ""
    skip_assignment: bool = False
    # (member id, group instance id, metadata): only for the leader
    members: list[tuple[str, str | None, bytes]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SyncMember:
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None
    protocol_type: str | None
    protocol_name: str | None
    # The leader's assignment by member id; empty from followers.
    assignments: dict[str, bytes]


@dataclass(slots=True)
class SyncResult:
    error: ErrorCode
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""


@dataclass(frozen=True, slots=True)
class MemberHeartbeat:
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None


@dataclass(frozen=True, slots=True)
class LeavingMember:
    """An empty member id names a static member by its instance id (administrative removal)."""

    member_id: str
    group_instance_id: str | None


# --- offsets ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CommitOffsets:
    """OffsetCommit. Generation -1 with no member: a standalone consumer's commit."""

    group_id: str
    member_id: str
    group_instance_id: str | None
    generation_id: int
    offsets: dict[TopicPartition, OffsetAndMetadata]
    # The OffsetCommit version (a consumer group member must use v9+); None: not checked.
    api_version: int | None = None


@dataclass(frozen=True, slots=True)
class CommitTxnOffsets:
    """TxnOffsetCommit: offsets held for the producer's transaction until its marker."""

    group_id: str
    producer_id: int
    producer_epoch: int
    member_id: str
    group_instance_id: str | None
    generation_id: int
    offsets: dict[TopicPartition, OffsetAndMetadata]


@dataclass(frozen=True, slots=True)
class FetchedOffset:
    offset: int
    leader_epoch: int
    metadata: str
    error: ErrorCode


NO_OFFSET = FetchedOffset(-1, -1, "", ErrorCode.NONE)
