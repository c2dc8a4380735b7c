"""A share group on the cluster: its membership is kept in `__consumer_offsets` beside the
other groups, so its coordinator is the leader of the group's partition of that topic (the
others answer NOT_COORDINATOR), and when that broker is killed (SIGKILL) the partition's new
leader reads the group back: its member heartbeats on at its epoch there."""

from __future__ import annotations

from typing import Any

from confluent_kafka.admin import AdminClient

from odradek.testing import OdradekCluster
from protocol.errors import ErrorCode as E
from protocol.messages.find_coordinator_request import FindCoordinatorRequest
from protocol.messages.share_group_describe_request import ShareGroupDescribeRequest
from protocol.messages.share_group_heartbeat_request import ShareGroupHeartbeatRequest
from tests.integration.cluster.test_failover import create_topic
from tests.kafka_wire import WireClient
from tests.names import unique
from tests.polling import wait_until


def _coordinator(bootstrap: str, group: str) -> int | None:
    """The node FindCoordinator names for the group, or None while there is none."""
    try:
        with WireClient(bootstrap) as c:
            found: Any = c.call(10, 4, FindCoordinatorRequest(key_type=0, coordinator_keys=[group]))
    except OSError:
        return None
    [entry] = found.coordinators
    return int(entry.node_id) if entry.error_code == E.NONE else None


def _heartbeat(bootstrap: str, group: str, epoch: int, topic: str) -> Any:
    with WireClient(bootstrap) as c:
        return c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id="m1", member_epoch=epoch,
                                                        subscribed_topic_names=[topic]))


def test_a_share_group_follows_its_coordinator_partition(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic, group = unique("cluster-share"), unique("sg")
    create_topic(admin, topic, 3)
    first = cluster.broker(1).bootstrap
    joined: list[tuple[int, Any]] = []

    def join() -> bool:
        # Until the partition's leader named by FindCoordinator has loaded it.
        node = _coordinator(first, group)
        if node is None:
            return False
        answer = _heartbeat(cluster.broker(node).bootstrap, group, 0, topic)
        if answer.error_code in (E.COORDINATOR_LOAD_IN_PROGRESS, E.NOT_COORDINATOR):
            return False
        joined.append((node, answer))
        return True

    wait_until(join, timeout=30, what=f"a coordinator serving {group}")
    coordinator, answer = joined[0]
    assert (answer.error_code, answer.member_id, answer.member_epoch) == (E.NONE, "m1", 1)
    for other in (n for n in cluster.brokers if n != coordinator):
        refused = _heartbeat(cluster.broker(other).bootstrap, group, 1, topic)
        assert refused.error_code == E.NOT_COORDINATOR
        with WireClient(cluster.broker(other).bootstrap) as c:
            described: Any = c.call(77, 1, ShareGroupDescribeRequest(group_ids=[group]))
        assert described.groups[0].error_code == E.NOT_COORDINATOR

    cluster.broker(coordinator).kill()
    survivors = [n for n in cluster.brokers if n != coordinator]
    moved: list[int] = []
    wait_until(lambda: (n := _coordinator(cluster.broker(survivors[0]).bootstrap, group)) in survivors
               and not moved.append(n), timeout=30, what=f"a coordinator for {group} among {survivors}")
    new = cluster.broker(moved[-1]).bootstrap
    again: list[Any] = []
    wait_until(lambda: (r := _heartbeat(new, group, 1, topic)).error_code
               not in (E.COORDINATOR_LOAD_IN_PROGRESS, E.NOT_COORDINATOR) and not again.append(r),
               timeout=30, what=f"the group served at {new}")
    # The member kept its epoch: the group was read back, not started again.
    assert (again[0].error_code, again[0].member_epoch) == (E.NONE, 1)
    with WireClient(new) as c:
        described = c.call(77, 1, ShareGroupDescribeRequest(group_ids=[group]))
    [g] = described.groups
    assert (g.error_code, g.group_epoch, [m.member_id for m in g.members]) == (E.NONE, 1, ["m1"])
