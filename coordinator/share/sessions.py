"""Share sessions (KIP-932, Kafka's ShareSessionCache): per (group, member), the share
partitions a member fetches and the epoch its next ShareFetch/ShareAcknowledge must carry.
Epoch 0 opens a session (ShareFetch only), -1 closes it, any other epoch must be the
session's next one; the epoch wraps from the largest int32 to 1."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from protocol.errors import ErrorCode

INITIAL_EPOCH = 0
FINAL_EPOCH = -1
_MAX_EPOCH = 2**31 - 1

SessionPartition = tuple[uuid.UUID, int]


@dataclass
class ShareSession:
    group_id: str
    member_id: str
    epoch: int = 1
    # Insertion-ordered set of (topic id, partition).
    partitions: dict[SessionPartition, None] = field(default_factory=dict)

    def bump(self) -> None:
        self.epoch = 1 if self.epoch >= _MAX_EPOCH else self.epoch + 1


class ShareSessionError(Exception):
    def __init__(self, error: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.error = error


class ShareSessionCache:
    def __init__(self) -> None:
        self.sessions: dict[tuple[str, str], ShareSession] = {}
        # Groups whose last session here its member closed, until `take_emptied` (Kafka's
        # SharePartitionManager `onGroupEmpty`: their share partitions here are dropped).
        self._emptied: set[str] = set()

    def open(self, group_id: str, member_id: str) -> ShareSession:
        """Epoch 0: a new session, replacing any the member had."""
        session = ShareSession(group_id, member_id)
        self.sessions[(group_id, member_id)] = session
        return session

    def use(self, group_id: str, member_id: str, epoch: int) -> ShareSession:
        """The member's session for a request carrying `epoch` (not 0): checked, and moved to
        its next epoch unless `epoch` closes it."""
        session = self.sessions.get((group_id, member_id))
        if session is None:
            raise ShareSessionError(ErrorCode.SHARE_SESSION_NOT_FOUND, f"no share session for member {member_id}")
        if epoch == FINAL_EPOCH:
            return session
        if epoch != session.epoch:
            raise ShareSessionError(
                ErrorCode.INVALID_SHARE_SESSION_EPOCH,
                f"share session epoch {epoch} is not the expected {session.epoch}",
            )
        session.bump()
        return session

    def close(self, group_id: str, member_id: str) -> ShareSession | None:
        session = self.sessions.pop((group_id, member_id), None)
        if session is not None and not self.has_group(group_id):
            self._emptied.add(group_id)
        return session

    def close_member(self, group_id: str, member_id: str) -> None:
        """The member left the group (or its session timed out): not a close of its own,
        its share partitions here stay (the next fetch or a lock timeout moves them on)."""
        self.sessions.pop((group_id, member_id), None)

    def has_group(self, group_id: str) -> bool:
        return any(g == group_id for g, _ in self.sessions)

    def take_emptied(self, group_id: str) -> bool:
        """Whether the group's last session here closed since the last call; a new session
        of the group cancels it."""
        if group_id not in self._emptied:
            return False
        self._emptied.discard(group_id)
        return not self.has_group(group_id)
