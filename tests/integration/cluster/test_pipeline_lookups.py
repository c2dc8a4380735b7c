"""The pipeline's driver-side offset look-ups across a leader change: a broker that led a
partition and lost it answers ListOffsets NOT_LEADER_OR_FOLLOWER, which librdkafka hands over
without its retriable flag; the look-up asks again instead of failing the streaming job."""

from __future__ import annotations

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient

from odradek.testing import OdradekCluster
from pipeline.metadata import ClusterView
from protocol.errors import ErrorCode
from tests.integration.cluster.test_failover import create_topic, wait_for_leaders
from tests.integration.cluster.test_leader_errors import list_offsets
from tests.kafka_wire import WireClient
from tests.names import unique
from tests.polling import wait_until


def test_latest_offsets_are_found_again_after_the_leader_moved(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("lookups")
    create_topic(admin, topic, 1)
    led = wait_for_leaders(admin, topic, 1, {1, 2, 3})
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all"})
    for i in range(5):
        producer.produce(topic, b"v%d" % i, partition=0)
    assert producer.flush(30) == 0
    view = ClusterView({"bootstrap.servers": cluster.bootstrap})
    assert view.latest_stable([(topic, 0)]) == {(topic, 0): 5}

    zombie = cluster.broker(led[0])
    zombie.pause()
    try:
        survivors = {1, 2, 3} - {led[0]}
        others = AdminClient({"bootstrap.servers": ",".join(cluster.broker(n).bootstrap for n in survivors)})
        wait_for_leaders(others, topic, 1, survivors)
    finally:
        zombie.resume()
    with WireClient(zombie.bootstrap) as old:
        wait_until(lambda: list_offsets(old, topic, -1) == ErrorCode.NOT_LEADER_OR_FOLLOWER,
                   timeout=15, what="the former leader refusing ListOffsets")

    assert view.latest_stable([(topic, 0)]) == {(topic, 0): 5}
    assert view.earliest([(topic, 0)]) == {(topic, 0): 0}
