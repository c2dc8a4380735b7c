"""The record-state transition table, walked over every pair of states."""

from __future__ import annotations

import itertools

import pytest

from coordinator.share.record_state import (
    VALID_PREVIOUS_STATES,
    AcknowledgeType,
    IllegalRecordTransitionError,
    RecordState,
    is_valid_transition,
    transition,
)

S = RecordState

# Kafka's RecordState.validateTransition, plus AVAILABLE -> ARCHIVED (the start offset moving
# past records nobody holds).
EXPECTED = {
    (S.AVAILABLE, S.ACQUIRED),
    (S.AVAILABLE, S.ARCHIVED),
    (S.ACQUIRED, S.AVAILABLE),
    (S.ACQUIRED, S.ACKNOWLEDGED),
    (S.ACQUIRED, S.ARCHIVED),
}


@pytest.mark.parametrize(("current", "target"), list(itertools.product(S, S)))
def test_every_pair(current: RecordState, target: RecordState) -> None:
    valid = (current, target) in EXPECTED
    assert is_valid_transition(current, target) is valid
    if valid:
        assert transition(current, target) is target
    else:
        with pytest.raises(IllegalRecordTransitionError) as info:
            transition(current, target)
        assert (info.value.current, info.value.target) == (current, target)


def test_table_covers_every_state() -> None:
    assert set(VALID_PREVIOUS_STATES) == set(S)


def test_terminal_states_have_no_way_out() -> None:
    for state in S:
        outgoing = {t for t in S if is_valid_transition(state, t)}
        assert (outgoing == set()) is state.is_terminal


def test_ids_are_the_stored_delivery_states() -> None:
    assert [(s.name, s.id) for s in S] == [("AVAILABLE", 0), ("ACQUIRED", 1), ("ACKNOWLEDGED", 2), ("ARCHIVED", 4)]
    assert [S.from_id(i) for i in (0, 1, 2, 4)] == list(S)
    with pytest.raises(ValueError):
        S.from_id(3)


def test_acknowledge_types_on_the_wire() -> None:
    assert [(a.name, a.value) for a in AcknowledgeType] == [
        ("GAP", 0),
        ("ACCEPT", 1),
        ("RELEASE", 2),
        ("REJECT", 3),
        ("RENEW", 4),
    ]
    assert AcknowledgeType.from_wire(2) is AcknowledgeType.RELEASE
    assert AcknowledgeType.from_wire(5) is None
    assert AcknowledgeType.from_wire(-1) is None
