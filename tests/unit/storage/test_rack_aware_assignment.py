"""Rack-aware leader placement (storage/postgres/cluster/assignment.py): with broker.rack
set, a topic's partitions spread over the racks within the brokers' balance; without racks
the placement is the rack-unaware one."""

from __future__ import annotations

import uuid
from collections import Counter

from storage.postgres.cluster.assignment import PartitionKey, assign

T1 = uuid.UUID(int=1)
T2 = uuid.UUID(int=2)
TWO_RACKS = {1: "a", 2: "a", 3: "b", 4: "b"}


def keys(topic: uuid.UUID, n: int) -> list[PartitionKey]:
    return [(topic, p) for p in range(n)]


def racks_used(chosen: dict[PartitionKey, int | None], racks: dict[int, str]) -> Counter[str]:
    return Counter(racks[b] for b in chosen.values() if b is not None)


def test_a_topic_of_fewer_partitions_than_brokers_lands_on_every_rack() -> None:
    chosen = assign(keys(T1, 2), {}, [1, 2, 3, 4], TWO_RACKS)
    assert racks_used(chosen, TWO_RACKS) == {"a": 1, "b": 1}
    # Rack-unaware, the same topic sits on the two least loaded, lowest ids: one rack.
    assert racks_used(assign(keys(T1, 2), {}, [1, 2, 3, 4]), TWO_RACKS) == {"a": 2}


def test_uneven_racks_get_partitions_as_even_as_the_brokers_balance_allows() -> None:
    racks = {1: "a", 2: "a", 3: "a", 4: "b"}
    chosen = assign(keys(T1, 2), {}, [1, 2, 3, 4], racks)
    assert racks_used(chosen, racks) == {"a": 1, "b": 1}
    chosen = assign(keys(T1, 6), {}, [1, 2, 3, 4], racks)
    # Broker counts still differ by one at most; the two extra partitions go to both racks.
    assert sorted(Counter(chosen.values()).values()) == [1, 1, 2, 2]
    assert racks_used(chosen, racks)["b"] == 2


def test_every_partition_keeps_the_brokers_balance_with_racks() -> None:
    for n in range(1, 13):
        chosen = assign(keys(T1, n), {}, [1, 2, 3, 4], TWO_RACKS)
        counts = Counter(chosen.values())
        assert max(counts.values()) - min(counts.get(b, 0) for b in (1, 2, 3, 4)) <= 1, n
        per_rack = racks_used(chosen, TWO_RACKS)
        assert abs(per_rack["a"] - per_rack["b"]) <= 1, n


def test_racks_move_no_leader_on_a_live_broker() -> None:
    current: dict[PartitionKey, int | None] = {(T1, 0): 1, (T1, 1): 2}
    # Both on rack a, but moving a live leader costs a takeover: they stay.
    assert assign(keys(T1, 2), current, [1, 2, 3, 4], TWO_RACKS) == current


def test_a_dead_brokers_partition_goes_to_the_rack_holding_none_of_the_topic() -> None:
    current: dict[PartitionKey, int | None] = {(T1, 0): 1, (T1, 1): 3}
    chosen = assign(keys(T1, 2), current, [2, 3, 4], TWO_RACKS)
    # Broker 1 (rack a) is gone: its partition goes to rack a's other broker, the rack
    # that holds none of the topic now.
    assert chosen == {(T1, 0): 2, (T1, 1): 3}


def test_brokers_without_a_rack_are_racks_of_their_own() -> None:
    for n in range(1, 8):
        partitions = keys(T1, n) + keys(T2, n + 1)
        assert assign(partitions, {}, [1, 2, 3], {1: None, 2: None, 3: None}) == assign(partitions, {}, [1, 2, 3])
    mixed = {1: "a", 2: "a", 3: None}
    chosen = assign(keys(T1, 2), {}, [1, 2, 3], mixed)
    assert sorted(chosen.values()) in ([1, 3], [2, 3])
