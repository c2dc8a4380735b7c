"""Incremental reconciliation (Kafka's CurrentAssignmentBuilder): revoke, then assign."""

from __future__ import annotations

from coordinator.group.consumer.reconciliation import MemberAssignment, MemberState, reconcile

T0, T1, T2 = ("t", 0), ("t", 1), ("t", 2)


def nobody(_: tuple[str, int]) -> str | None:
    return None


def test_new_member_gets_its_free_target_at_the_target_epoch() -> None:
    step = reconcile("m", MemberAssignment(), 3, frozenset({T0, T1}), nobody, None)
    assert step == MemberAssignment(MemberState.STABLE, 3, 0, frozenset({T0, T1}), frozenset())


def test_partitions_leaving_the_target_are_revoked_first_at_the_same_epoch() -> None:
    current = MemberAssignment(MemberState.STABLE, 3, 0, frozenset({T0, T1, T2}))
    step = reconcile("m", current, 4, frozenset({T0}), nobody, None)
    assert step.state is MemberState.UNREVOKED_PARTITIONS
    assert step.member_epoch == 3
    assert step.assigned == {T0} and step.pending_revocation == {T1, T2}
    # The member still reports T1: it stays here.
    assert reconcile("m", step, 4, frozenset({T0}), nobody, frozenset({T0, T1})) == step
    # Without a report it stays too.
    assert reconcile("m", step, 4, frozenset({T0}), nobody, None) == step
    # It let go of both: it moves to the new epoch.
    done = reconcile("m", step, 4, frozenset({T0}), nobody, frozenset({T0}))
    assert done == MemberAssignment(MemberState.STABLE, 4, 3, frozenset({T0}), frozenset())


def test_a_partition_another_member_still_owns_is_held_back() -> None:
    def owner(tp: tuple[str, int]) -> str | None:
        return "other" if tp == T1 else None

    step = reconcile("m", MemberAssignment(MemberState.STABLE, 1, 0, frozenset({T0})), 2,
                     frozenset({T0, T1}), owner, None)
    assert step.state is MemberState.UNRELEASED_PARTITIONS
    assert step.member_epoch == 2 and step.assigned == {T0}
    released = reconcile("m", step, 2, frozenset({T0, T1}), nobody, frozenset({T0}))
    assert released.state is MemberState.STABLE and released.assigned == {T0, T1}


def test_a_stable_member_at_the_target_epoch_does_not_change() -> None:
    current = MemberAssignment(MemberState.STABLE, 5, 4, frozenset({T0}))
    assert reconcile("m", current, 5, frozenset({T0}), nobody, frozenset({T0})) is current
