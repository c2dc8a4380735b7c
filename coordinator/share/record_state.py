"""The delivery state of an in-flight record of a share partition (Kafka's `RecordState`), the
one table of valid transitions, and the acknowledgement types of ShareFetch/ShareAcknowledge
(Kafka's `AcknowledgeType`)."""

from __future__ import annotations

from enum import Enum


class RecordState(Enum):
    """Values are the ids `__share_group_state` stores (ACQUIRED is never stored: a restart
    makes acquired records available again)."""

    AVAILABLE = 0
    ACQUIRED = 1
    ACKNOWLEDGED = 2
    ARCHIVED = 4

    @property
    def id(self) -> int:
        return self.value

    @property
    def is_terminal(self) -> bool:
        """Delivery is complete: the record is never delivered again."""
        return self in (RecordState.ACKNOWLEDGED, RecordState.ARCHIVED)

    @classmethod
    def from_id(cls, state_id: int) -> RecordState:
        for state in cls:
            if state.id == state_id:
                return state
        raise ValueError(f"unknown record state id {state_id}")


S = RecordState

# target state -> the states it may be entered from. AVAILABLE -> ARCHIVED is the start offset
# moving past records nobody holds (log start offset advanced, offsets reset); everything
# else is Kafka's `RecordState.validateTransition`. ACKNOWLEDGED and ARCHIVED are final.
VALID_PREVIOUS_STATES: dict[RecordState, frozenset[RecordState]] = {
    S.AVAILABLE: frozenset({S.ACQUIRED}),
    S.ACQUIRED: frozenset({S.AVAILABLE}),
    S.ACKNOWLEDGED: frozenset({S.ACQUIRED}),
    S.ARCHIVED: frozenset({S.AVAILABLE, S.ACQUIRED}),
}


def is_valid_transition(current: RecordState, target: RecordState) -> bool:
    return current in VALID_PREVIOUS_STATES[target]


class IllegalRecordTransitionError(Exception):
    def __init__(self, current: RecordState, target: RecordState) -> None:
        super().__init__(f"record state {current.name} cannot become {target.name}")
        self.current = current
        self.target = target


def transition(current: RecordState, target: RecordState) -> RecordState:
    if not is_valid_transition(current, target):
        raise IllegalRecordTransitionError(current, target)
    return target


class AcknowledgeType(Enum):
    """The wire values of ShareFetch/ShareAcknowledge `AcknowledgeTypes` (GAP marks offsets
    that hold no record, e.g. compacted away; RENEW is KIP-1222's lock renewal, v2+)."""

    GAP = 0
    ACCEPT = 1
    RELEASE = 2
    REJECT = 3
    RENEW = 4

    @classmethod
    def from_wire(cls, value: int) -> AcknowledgeType | None:
        for ack in cls:
            if ack.value == value:
                return ack
        return None
