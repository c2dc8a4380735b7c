"""Incremental reconciliation of a member towards its target assignment (Kafka's
CurrentAssignmentBuilder): a partition is revoked before it is assigned elsewhere.

A member moves through a table of states. It reaches the target epoch only once it
holds no partition outside its target; a partition of its target still owned by another
member (not yet revoked there) is held back ("unreleased") until that member lets go."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum

from coordinator.group.consumer.assignors import Partition


class MemberState(Enum):
    STABLE = "stable"
    UNREVOKED_PARTITIONS = "unrevoked_partitions"
    UNRELEASED_PARTITIONS = "unreleased_partitions"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class MemberAssignment:
    state: MemberState = MemberState.STABLE
    member_epoch: int = 0
    previous_member_epoch: int = -1
    assigned: frozenset[Partition] = field(default_factory=frozenset)
    pending_revocation: frozenset[Partition] = field(default_factory=frozenset)


# (partition) -> the member currently owning it (assigned or being revoked), or None.
OwnerOf = Callable[[Partition], "str | None"]


def reconcile(
    member_id: str,
    current: MemberAssignment,
    target_epoch: int,
    target: frozenset[Partition],
    owner_of: OwnerOf,
    owned: frozenset[Partition] | None,
) -> MemberAssignment:
    """The member's next step; `owned` is what the member reports holding (None when the
    heartbeat did not say)."""
    step = _TRANSITIONS[current.state]
    return step(member_id, current, target_epoch, target, owner_of, owned)


def _from_stable(member_id: str, current: MemberAssignment, target_epoch: int, target: frozenset[Partition],
                 owner_of: OwnerOf, owned: frozenset[Partition] | None) -> MemberAssignment:
    if current.member_epoch == target_epoch:
        return current
    return _next(member_id, current, target_epoch, target, owner_of)


def _from_unrevoked(member_id: str, current: MemberAssignment, target_epoch: int, target: frozenset[Partition],
                    owner_of: OwnerOf, owned: frozenset[Partition] | None) -> MemberAssignment:
    # The member stays here until it confirms (in a heartbeat listing what it owns)
    # that it let go of every revoked partition.
    if owned is None or owned & current.pending_revocation:
        return current
    return _next(member_id, current, target_epoch, target, owner_of)


def _from_unreleased(member_id: str, current: MemberAssignment, target_epoch: int, target: frozenset[Partition],
                     owner_of: OwnerOf, owned: frozenset[Partition] | None) -> MemberAssignment:
    return _next(member_id, current, target_epoch, target, owner_of)


def _next(member_id: str, current: MemberAssignment, target_epoch: int, target: frozenset[Partition],
          owner_of: OwnerOf) -> MemberAssignment:
    keep = current.assigned & target
    revoke = current.assigned - target
    if revoke:
        # Revoke first; the epoch stays until the member confirms.
        return replace(current, state=MemberState.UNREVOKED_PARTITIONS, assigned=keep,
                       pending_revocation=frozenset(revoke))
    free = frozenset(tp for tp in target - keep if owner_of(tp) in (None, member_id))
    state = MemberState.STABLE if keep | free == target else MemberState.UNRELEASED_PARTITIONS
    previous = current.member_epoch if current.member_epoch != target_epoch else current.previous_member_epoch
    return MemberAssignment(state=state, member_epoch=target_epoch, previous_member_epoch=previous,
                            assigned=keep | free, pending_revocation=frozenset())


_TRANSITIONS = {
    MemberState.STABLE: _from_stable,
    MemberState.UNREVOKED_PARTITIONS: _from_unrevoked,
    MemberState.UNRELEASED_PARTITIONS: _from_unreleased,
    MemberState.UNKNOWN: _from_unreleased,
}
