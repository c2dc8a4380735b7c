"""The classic group state machine: every valid transition, in one table.

    Empty --join--> PreparingRebalance --all joined--> CompletingRebalance --leader sync--> Stable
    Stable / CompletingRebalance --join, leave, expiry--> PreparingRebalance
    PreparingRebalance --every member gone--> Empty
    Empty / PreparingRebalance / CompletingRebalance / Stable --deleted, expired--> Dead
"""

from __future__ import annotations

from enum import StrEnum


class GroupState(StrEnum):
    """The value is the name Kafka reports (DescribeGroups, ListGroups)."""

    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"

    @classmethod
    def parse(cls, name: str) -> GroupState | None:
        """Kafka's ListGroups states filter matches case-insensitively."""
        for state in cls:
            if state.value.lower() == name.lower():
                return state
        return None


# target state -> the states it may be entered from (Kafka's GroupState.validPreviousStates)
VALID_PREVIOUS_STATES: dict[GroupState, frozenset[GroupState]] = {
    GroupState.EMPTY: frozenset({GroupState.PREPARING_REBALANCE}),
    GroupState.PREPARING_REBALANCE: frozenset(
        {GroupState.STABLE, GroupState.COMPLETING_REBALANCE, GroupState.EMPTY}
    ),
    GroupState.COMPLETING_REBALANCE: frozenset({GroupState.PREPARING_REBALANCE}),
    GroupState.STABLE: frozenset({GroupState.COMPLETING_REBALANCE}),
    GroupState.DEAD: frozenset(
        {
            GroupState.STABLE,
            GroupState.PREPARING_REBALANCE,
            GroupState.COMPLETING_REBALANCE,
            GroupState.EMPTY,
            GroupState.DEAD,
        }
    ),
}


class IllegalStateTransition(RuntimeError):
    pass


def is_valid_transition(current: GroupState, target: GroupState) -> bool:
    return current in VALID_PREVIOUS_STATES[target]


def check_transition(current: GroupState, target: GroupState) -> None:
    if not is_valid_transition(current, target):
        raise IllegalStateTransition(f"group cannot go from {current.value} to {target.value}")
