"""A share group's membership (Kafka's `ShareGroup`/`ShareGroupMember`): members with their
epochs and subscriptions, the group epoch, and the target assignment of the simple assignor
(`coordinator/share/assignor.py`) at its assignment epoch."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from coordinator.share.assignor import ASSIGNOR_NAME, MemberSpec, TopicPartition, assign
from storage.clock import Timer


class ShareGroupState(Enum):
    """The states ListGroups/ShareGroupDescribe report for share groups."""

    EMPTY = "Empty"
    STABLE = "Stable"
    DEAD = "Dead"


@dataclass(frozen=True)
class ShareTopic:
    """What the assignor and the responses need of a topic."""

    topic_id: uuid.UUID
    partitions: int


@dataclass
class ShareMember:
    member_id: str
    client_id: str
    client_host: str
    rack_id: str | None = None
    subscribed_topics: frozenset[str] = frozenset()
    member_epoch: int = 0
    previous_member_epoch: int = -1
    assignment: frozenset[TopicPartition] = frozenset()
    session_timer: Timer | None = field(default=None, repr=False)


class ShareGroup:
    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.members: dict[str, ShareMember] = {}
        self.group_epoch = 0
        self.assignment_epoch = 0
        self.target: dict[str, frozenset[TopicPartition]] = {}
        # The topic metadata the target assignment was computed from: a change of partition
        # counts (or a topic created/deleted) needs a new assignment.
        # None after a load: the log does not hold them (`adopt_topics`).
        self._assigned_topics: dict[str, int] | None = {}
        self.assignor_name = ASSIGNOR_NAME

    @property
    def state(self) -> ShareGroupState:
        return ShareGroupState.STABLE if self.members else ShareGroupState.EMPTY

    def subscribed_topic_names(self) -> frozenset[str]:
        return frozenset(t for m in self.members.values() for t in m.subscribed_topics)

    def bump_epoch(self) -> None:
        self.group_epoch += 1

    def adopt_topics(self) -> None:
        """A group loaded from the log: the next `topics_changed` takes the topics as they are
        then for those of the loaded target assignment (the epoch stays)."""
        self._assigned_topics = None

    def topics_changed(self, topics: Mapping[str, ShareTopic]) -> bool:
        """The subscribed topics' partitioning differs from the target assignment's."""
        current = {t: topics[t].partitions for t in self.subscribed_topic_names() if t in topics}
        if self._assigned_topics is None:
            self._assigned_topics = current
        return current != self._assigned_topics

    def update_target(self, topics: Mapping[str, ShareTopic]) -> None:
        """Recompute the target assignment if the group epoch moved past it."""
        if self.assignment_epoch == self.group_epoch:
            return
        counts = {t: topics[t].partitions for t in self.subscribed_topic_names() if t in topics}
        specs = {
            m.member_id: MemberSpec(m.subscribed_topics, self.target.get(m.member_id, frozenset()))
            for m in self.members.values()
        }
        self.target = assign(specs, counts)
        self._assigned_topics = counts
        self.assignment_epoch = self.group_epoch

    def add(self, member: ShareMember) -> None:
        """The caller bumps the epoch, once for everything its heartbeat changed."""
        self.members[member.member_id] = member

    def remove(self, member_id: str) -> ShareMember | None:
        member = self.members.pop(member_id, None)
        if member is not None:
            if member.session_timer is not None:
                member.session_timer.cancel()
            self.target.pop(member_id, None)
            self.bump_epoch()
        return member
