"""Ownership's answers to requests: owned and loaded, loading, not owned, and a lapsed
cluster lease (the partition kept, its memory not answered from until the lease renews)."""

from __future__ import annotations

from coordinator.ownership import Ownership
from protocol.errors import ErrorCode


def test_serving_error_follows_the_load_and_the_lease() -> None:
    ownership = Ownership(2, owns_all=False)
    assert ownership.serving_error(0) == ErrorCode.NOT_COORDINATOR
    _, owned = ownership.elect(0, 3)
    assert owned is not None
    assert ownership.serving_error(0) == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
    assert ownership.loaded(owned)
    assert ownership.serving_error(0) is None

    lease = [False]
    ownership.lease = lambda: lease[0]
    assert ownership.serving_error(0) == ErrorCode.NOT_COORDINATOR
    # Still owned and loaded: the partition's work goes on, and a renewed lease serves again.
    assert ownership.error(0) is None and ownership.holds(owned)
    lease[0] = True
    assert ownership.serving_error(0) is None
    assert ownership.serving_error(1) == ErrorCode.NOT_COORDINATOR
