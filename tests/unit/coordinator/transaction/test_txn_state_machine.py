"""The transition table, walked exhaustively against Kafka's validPreviousStates."""

from __future__ import annotations

import itertools

import pytest

from coordinator.transaction.metadata import IllegalTransitionError, TransactionMetadata
from coordinator.transaction.state import VALID_PREVIOUS_STATES, TransactionState, is_valid_transition

S = TransactionState

# Kafka 4.3 TransactionState, without the transaction-version-2-only aborts from Empty/Complete*.
KAFKA_TABLE = {
    S.EMPTY: {S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT},
    S.ONGOING: {S.ONGOING, S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT},
    S.PREPARE_COMMIT: {S.ONGOING},
    S.PREPARE_ABORT: {S.ONGOING, S.PREPARE_EPOCH_FENCE, S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT},
    S.COMPLETE_COMMIT: {S.PREPARE_COMMIT},
    S.COMPLETE_ABORT: {S.PREPARE_ABORT},
    S.DEAD: {S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT},
    S.PREPARE_EPOCH_FENCE: {S.ONGOING},
}


def test_table_matches_kafka() -> None:
    assert {k: set(v) for k, v in VALID_PREVIOUS_STATES.items()} == KAFKA_TABLE


def test_ids_and_names() -> None:
    assert [(s.id, s.state_name) for s in S] == [
        (0, "Empty"),
        (1, "Ongoing"),
        (2, "PrepareCommit"),
        (3, "PrepareAbort"),
        (4, "CompleteCommit"),
        (5, "CompleteAbort"),
        (6, "Dead"),
        (7, "PrepareEpochFence"),
    ]
    for s in S:
        assert S.from_id(s.id) is s
        assert S.from_name(s.state_name) is s
    assert S.from_name("Bogus") is None


def _meta(state: TransactionState) -> TransactionMetadata:
    return TransactionMetadata("t", 1, producer_epoch=3, timeout_ms=1000, state=state, partitions={("a", 0)})


def _prepare(meta: TransactionMetadata, target: TransactionState) -> object:
    now = 5
    if target is S.EMPTY:
        return meta.prepare_increment_epoch(None, 1000, now)
    if target is S.ONGOING:
        return meta.prepare_add_partitions({("b", 1)}, now)
    if target is S.PREPARE_COMMIT:
        return meta.prepare_end(True, now)
    if target is S.PREPARE_ABORT:
        return meta.prepare_end(False, now)
    if target in (S.COMPLETE_COMMIT, S.COMPLETE_ABORT):
        transit = meta.prepare_complete(now)
        if transit.state is not target:
            meta.abort_transition()
            raise IllegalTransitionError("other completion")
        return transit
    if target is S.DEAD:
        return meta.prepare_dead(now)
    return meta._transit(target, now_ms=now)


@pytest.mark.parametrize(("current", "target"), list(itertools.product(list(S), list(S))))
def test_every_transition(current: TransactionState, target: TransactionState) -> None:
    meta = _meta(current)
    if is_valid_transition(current, target):
        transit = _prepare(meta, target)
        assert meta.pending_state is target
        if target is not S.PREPARE_EPOCH_FENCE:
            meta.complete_transition(transit)  # type: ignore[arg-type]
            assert meta.state is target
            assert meta.pending_state is None
    else:
        with pytest.raises(IllegalTransitionError):
            _prepare(meta, target)
        assert meta.state is current
        assert meta.pending_state is None


def test_one_pending_transition_at_a_time() -> None:
    meta = _meta(S.ONGOING)
    meta.prepare_end(True, 1)
    with pytest.raises(IllegalTransitionError):
        meta.prepare_end(False, 1)
    meta.abort_transition()
    assert meta.state is S.ONGOING and meta.pending_state is None


def test_fence_goes_through_prepare_epoch_fence_to_prepare_abort() -> None:
    meta = _meta(S.ONGOING)
    transit = meta.prepare_fence_and_abort(9)
    assert transit.state is S.PREPARE_ABORT and transit.producer_epoch == 4
    assert meta.pending_state is S.PREPARE_ABORT and meta.state is S.ONGOING
    meta.complete_transition(transit)
    assert (meta.state, meta.producer_epoch, meta.last_producer_epoch) == (S.PREPARE_ABORT, 4, -1)


def test_fence_refused_outside_ongoing() -> None:
    for state in S:
        if state is S.ONGOING:
            continue
        with pytest.raises(IllegalTransitionError):
            _meta(state).prepare_fence_and_abort(1)


def test_complete_checks_invariants() -> None:
    meta = _meta(S.ONGOING)
    transit = meta.prepare_add_partitions(set(), 1)
    bad = transit.__class__(**{**{f: getattr(transit, f) for f in transit.__slots__}, "producer_epoch": 7})
    with pytest.raises(IllegalTransitionError):
        meta.complete_transition(bad)
    shrunk = transit.__class__(
        **{**{f: getattr(transit, f) for f in transit.__slots__}, "partitions": frozenset()}
    )
    with pytest.raises(IllegalTransitionError):
        meta.complete_transition(shrunk)
    retimed = transit.__class__(**{**{f: getattr(transit, f) for f in transit.__slots__}, "timeout_ms": 5})
    with pytest.raises(IllegalTransitionError):
        meta.complete_transition(retimed)
