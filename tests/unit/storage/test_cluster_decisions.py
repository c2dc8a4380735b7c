"""The cluster's pure decisions: the controller's leader assignment (balanced, few moves)
and the fence (storage/postgres/cluster/assignment.py, leadership.py)."""

from __future__ import annotations

import uuid
from collections import Counter

from protocol.errors import ErrorCode
from storage.postgres.cluster.assignment import assign
from storage.postgres.cluster.leadership import Leadership, fenced
from storage.postgres.cluster.membership import (
    application_name,
    incarnation_of,
    lock_spaces,
    node_of_application,
)

T1 = uuid.UUID(int=1)
T2 = uuid.UUID(int=2)


def keys(topic: uuid.UUID, n: int) -> list[tuple[uuid.UUID, int]]:
    return [(topic, p) for p in range(n)]


def per_broker(chosen: dict) -> dict[int, int]:
    return dict(Counter(chosen.values()))


def test_a_fresh_topic_is_spread_evenly() -> None:
    chosen = assign(keys(T1, 6), {}, [1, 2, 3])
    assert per_broker(chosen) == {1: 2, 2: 2, 3: 2}
    assert set(chosen) == set(keys(T1, 6))


def test_uneven_counts_differ_by_one_at_most() -> None:
    chosen = assign(keys(T1, 7), {}, [3, 1, 2])
    assert sorted(per_broker(chosen).values()) == [2, 2, 3]


def test_leaders_on_live_brokers_stay_put() -> None:
    current = {(T1, 0): 2, (T1, 1): 3, (T1, 2): 1}
    assert assign(keys(T1, 3), current, [1, 2, 3]) == current


def test_a_dead_brokers_partitions_move_and_only_those() -> None:
    current = {(T1, p): [1, 2, 3][p % 3] for p in range(6)}
    chosen = assign(keys(T1, 6), current, [1, 3])
    assert per_broker(chosen) == {1: 3, 3: 3}
    # The survivors keep what they led.
    assert all(chosen[k] == leader for k, leader in current.items() if leader != 2)


def test_a_joining_broker_takes_a_share_from_the_most_loaded() -> None:
    current = {(T1, p): 1 for p in range(4)} | {(T1, p): 2 for p in range(4, 6)}
    chosen = assign(keys(T1, 6), current, [1, 2, 3])
    assert per_broker(chosen) == {1: 2, 2: 2, 3: 2}
    moved = [k for k in current if chosen[k] != current[k]]
    assert len(moved) == 2 and all(current[k] == 1 for k in moved)


def test_many_one_partition_topics_do_not_all_land_on_one_broker() -> None:
    topics = [uuid.UUID(int=i) for i in range(1, 10)]
    chosen = assign([(t, 0) for t in topics], {}, [1, 2, 3])
    assert per_broker(chosen) == {1: 3, 2: 3, 3: 3}


def test_no_live_broker_means_no_leader() -> None:
    assert assign(keys(T1, 2) + keys(T2, 1), {(T1, 0): 1}, []) == {(T1, 0): None, (T1, 1): None, (T2, 0): None}


def test_the_fence_passes_only_rows_naming_this_broker_at_the_served_epoch() -> None:
    a, b, c, d = (T1, 0), (T1, 1), (T1, 2), (T1, 3)
    found = {a: (1, 4), b: (2, 5), c: (1, 7)}
    expected = {a: 4, b: 4, c: 6, d: 0}
    # b moved to broker 2, c was bumped while we served 6, d has no row.
    assert fenced(1, expected, found) == {b, c, d}
    assert fenced(1, {a: None}, found) == {a}  # not served at all
    assert fenced(1, {a: 4}, found) == set()


def test_current_leader_epoch_checks_as_kafkas_partition() -> None:
    leadership = Leadership(1)
    key = (T1, 0)
    assert leadership.check(key) == ErrorCode.NOT_LEADER_OR_FOLLOWER
    leadership.serving[key] = 3
    assert leadership.check(key) == ErrorCode.NONE
    assert leadership.check(key, 3) == ErrorCode.NONE
    assert leadership.check(key, 2) == ErrorCode.FENCED_LEADER_EPOCH
    assert leadership.check(key, 4) == ErrorCode.UNKNOWN_LEADER_EPOCH


def test_a_brokers_sessions_are_named_for_its_node_and_process() -> None:
    name = application_name(12, "abc123")
    assert (node_of_application(name), incarnation_of(name)) == (12, "abc123")
    assert node_of_application("psql") is None
    assert node_of_application(None) is None


def test_lock_keys_differ_per_schema_and_fit_an_int4() -> None:
    one, two = lock_spaces("public"), lock_spaces("t1")
    assert one != two and one.nodes != one.controller
    assert all(0 <= key < 2**31 for key in (one.nodes, one.controller, two.nodes, two.controller))
