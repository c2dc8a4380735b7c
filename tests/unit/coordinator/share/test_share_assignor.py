"""The simple share assignor: shared partitions, balance within one, stickiness."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from coordinator.share.assignor import MemberSpec, TopicPartition, assign


def spec(*topics: str, current: set[TopicPartition] | None = None) -> MemberSpec:
    return MemberSpec(frozenset(topics), frozenset(current or ()))


def test_no_members() -> None:
    assert assign({}, {"t": 3}) == {}


def test_members_outnumbering_partitions_share_them() -> None:
    got = assign({"a": spec("t"), "b": spec("t"), "c": spec("t")}, {"t": 1})
    assert got == {m: frozenset({("t", 0)}) for m in "abc"}


def test_three_members_two_partitions() -> None:
    got = assign({"a": spec("t"), "b": spec("t"), "c": spec("t")}, {"t": 2})
    # Each partition shared by two members, each member has at least one partition.
    assert sorted(len(v) for v in got.values()) == [1, 1, 2]
    for index in range(2):
        assert sum(("t", index) in v for v in got.values()) == 2


def test_partitions_outnumbering_members_are_split() -> None:
    got = assign({"a": spec("t"), "b": spec("t")}, {"t": 5})
    assert got == {"a": frozenset({("t", 0), ("t", 2), ("t", 4)}), "b": frozenset({("t", 1), ("t", 3)})}


def test_unknown_and_unsubscribed_topics_are_left_out() -> None:
    got = assign({"a": spec("t", "missing", current={("gone", 0), ("t", 7)})}, {"t": 2, "other": 3})
    assert got == {"a": frozenset({("t", 0), ("t", 1)})}


def test_member_without_subscription_gets_nothing() -> None:
    assert assign({"a": spec()}, {"t": 2}) == {"a": frozenset()}


def test_same_input_same_assignment() -> None:
    members = {"a": spec("t"), "b": spec("t"), "c": spec("t")}
    first = assign(members, {"t": 4})
    again = {m: spec("t", current=set(first[m])) for m in members}
    assert assign(again, {"t": 4}) == first


def test_new_member_takes_from_the_most_loaded_only() -> None:
    a = {("t", 0), ("t", 1)}
    b = {("t", 2), ("t", 3)}
    got = assign({"a": spec("t", current=a), "b": spec("t", current=b), "c": spec("t")}, {"t": 4})
    assert sorted(len(v) for v in got.values()) == [1, 1, 2]
    assert len(got["c"]) == 1
    # Nobody received a partition it did not need: a and b only lost, never gained.
    assert got["a"] <= a and got["b"] <= b


def test_heterogeneous_subscriptions() -> None:
    got = assign({"a": spec("x"), "b": spec("x", "y"), "c": spec("y")}, {"x": 1, "y": 2})
    assert got["a"] == frozenset({("x", 0)})
    assert ("x", 0) in got["b"]
    assert got["b"] | got["c"] >= {("y", 0), ("y", 1)}
    for tp in [("y", 0), ("y", 1)]:
        assert sum(tp in v for v in got.values()) == 1


@settings(max_examples=200, deadline=None)
@given(
    n_members=st.integers(1, 9),
    n_partitions=st.integers(1, 9),
    previous=st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=20),
)
def test_homogeneous_balance(n_members: int, n_partitions: int, previous: list[tuple[int, int]]) -> None:
    members = {
        f"m{i}": spec("t", current={("t", p) for m, p in previous if m == i}) for i in range(n_members)
    }
    got = assign(members, {"t": n_partitions})
    sharing = math.ceil(n_members / n_partitions)
    for index in range(n_partitions):
        assert sum(("t", index) in v for v in got.values()) == sharing
    counts = [len(v) for v in got.values()]
    assert max(counts) - min(counts) <= 1
    assert min(counts) >= 1
