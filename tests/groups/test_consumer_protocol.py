"""KIP-848 consumer groups with confluent-kafka (`group.protocol=consumer`): the broker
computes the assignment and members reconcile towards it through ConsumerGroupHeartbeat."""

from __future__ import annotations

import time
from collections.abc import Callable

from confluent_kafka import Consumer, ConsumerGroupState, ConsumerGroupType, Message
from confluent_kafka import TopicPartition as CTP
from confluent_kafka.admin import AdminClient

from tests.broker_process import BrokerProcess
from tests.groups.test_groups_other_clients import make_topic
from tests.names import unique


def consumer(bs: str, group: str, **extra: object) -> Consumer:
    conf: dict[str, object] = {"bootstrap.servers": bs, "group.id": group, "group.protocol": "consumer",
                               "auto.offset.reset": "earliest", "enable.auto.commit": False,
                               "topic.metadata.refresh.interval.ms": 1000}
    conf.update(extra)
    return Consumer(conf)


def assigned(c: Consumer) -> set[tuple[str, int]]:
    return {(tp.topic, tp.partition) for tp in c.assignment()}


def poll_until(consumers: list[Consumer], done: Callable[[], bool], seconds: float = 40,
               on_message: Callable[[int, Message], None] | None = None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not done():
        for i, c in enumerate(consumers):
            msg = c.poll(0.05)
            if msg is not None and msg.error() is None and on_message is not None:
                on_message(i, msg)
    assert done()


def test_two_members_split_the_partitions_and_consume_once(group_broker: BrokerProcess) -> None:
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 4, 40)
    consumers = [consumer(bs, group) for _ in range(2)]
    seen: list[list[int]] = [[], []]

    def record(i: int, msg: Message) -> None:
        seen[i].append(int(msg.value() or b""))
        consumers[i].commit(message=msg, asynchronous=False)

    try:
        for c in consumers:
            c.subscribe([topic])

        def balanced() -> bool:
            a, b = assigned(consumers[0]), assigned(consumers[1])
            return len(seen[0]) + len(seen[1]) >= 40 and len(a) == 2 and len(b) == 2 and not a & b

        poll_until(consumers, balanced, on_message=record)
        assert sorted(seen[0] + seen[1]) == list(range(40))
        admin = AdminClient({"bootstrap.servers": bs})  # kept alive until the result arrives
        described = admin.describe_consumer_groups([group])[group].result(10)
        assert described.type == ConsumerGroupType.CONSUMER
        assert described.state == ConsumerGroupState.STABLE
        assert sorted(len(m.assignment.topic_partitions) for m in described.members) == [2, 2]
    finally:
        for c in consumers:
            c.close()
    committed = consumer(bs, group).committed([CTP(topic, p) for p in range(4)], timeout=10)
    assert sorted(tp.offset for tp in committed) == [10, 10, 10, 10]
