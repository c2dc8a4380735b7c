"""The KIP-848 broker-side assignors: balanced, sticky (uniform), contiguous (range)."""

from __future__ import annotations

from coordinator.group.consumer.assignors import AssignorMember, range_, uniform


def spec(*topics: str, current: set[tuple[str, int]] | None = None) -> AssignorMember:
    return AssignorMember(frozenset(topics), frozenset(current or set()))


def test_uniform_splits_evenly_and_assigns_every_partition_once() -> None:
    result = uniform({"a": spec("t"), "b": spec("t"), "c": spec("t")}, {"t": 7})
    assert sorted(len(p) for p in result.values()) == [2, 2, 3]
    everything = [tp for p in result.values() for tp in p]
    assert sorted(everything) == [("t", p) for p in range(7)]


def test_uniform_keeps_current_partitions_when_a_member_joins() -> None:
    before = uniform({"a": spec("t")}, {"t": 4})
    assert before["a"] == {("t", p) for p in range(4)}
    after = uniform({"a": spec("t", current=before["a"]), "b": spec("t")}, {"t": 4})
    # a keeps two of its four, b gets the other two: only two partitions move.
    assert len(after["a"]) == 2 and after["a"] <= before["a"]
    assert after["b"] == before["a"] - after["a"]


def test_uniform_gives_a_topic_only_to_its_subscribers() -> None:
    result = uniform({"a": spec("t", "u"), "b": spec("u")}, {"t": 2, "u": 2})
    assert {tp for tp in result["b"]} <= {("u", 0), ("u", 1)}
    assert {("t", 0), ("t", 1)} <= result["a"]
    assert sorted(len(p) for p in result.values()) == [2, 2]


def test_uniform_drops_partitions_of_topics_no_longer_subscribed() -> None:
    result = uniform({"a": spec("u", current={("t", 0)})}, {"u": 1})
    assert result == {"a": {("u", 0)}}


def test_range_gives_contiguous_ranges_in_member_order() -> None:
    result = range_({"b": spec("t", "u"), "a": spec("t", "u")}, {"t": 5, "u": 5})
    assert result["a"] == {("t", 0), ("t", 1), ("t", 2), ("u", 0), ("u", 1), ("u", 2)}
    assert result["b"] == {("t", 3), ("t", 4), ("u", 3), ("u", 4)}


def test_no_members_no_assignment() -> None:
    assert uniform({}, {"t": 3}) == {}
    assert range_({}, {"t": 3}) == {}
