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
        return self.sessions.pop((group_id, member_id), None)

    def close_member(self, group_id: str, member_id: str) -> None:
        self.sessions.pop((group_id, member_id), None)
