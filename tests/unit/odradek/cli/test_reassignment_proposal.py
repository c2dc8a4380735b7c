"""`reassign-partitions --generate`'s proposals: Kafka's rack-unaware assignment."""

from __future__ import annotations

import random

from odradek.cli.reassign_partitions import assign_replicas


def test_rack_unaware_assignment_spreads_leaders_and_replicas() -> None:
    """Kafka's AdminUtils.assignReplicasToBrokers, for the proposals of --generate on a cluster."""
    for seed in range(20):
        plan = assign_replicas(6, 3, [1, 2, 3], random.Random(seed))
        assert all(len(set(replicas)) == 3 for replicas in plan)
        assert sorted(r[0] for r in plan) == [1, 1, 2, 2, 3, 3]  # leaders round-robin
    assert assign_replicas(2, 1, [5], random.Random(0)) == [[5], [5]]
