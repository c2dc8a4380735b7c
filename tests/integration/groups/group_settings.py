"""The broker settings of the group tests."""

from __future__ import annotations

# Fast groups: no initial rebalance delay, short sessions allowed.
GROUP_OVERRIDES = {"group.initial.rebalance.delay.ms": "0", "group.min.session.timeout.ms": "1000",
                   "group.consumer.heartbeat.interval.ms": "500"}
