"""Mixed groups (KIP-848's online upgrade and downgrade) with confluent-kafka: a classic
consumer (the default `group.protocol`) and a `group.protocol=consumer` one in one group. The
classic group becomes a consumer group when the new member joins, both consume, each record
once, commits work, and the group turns classic again when the new member leaves."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import ConsumerGroupType, Producer
from confluent_kafka import TopicPartition as CTP
from confluent_kafka.admin import AdminClient

from protocol.errors import ErrorCode
from protocol.messages.consumer_group_heartbeat_request import ConsumerGroupHeartbeatRequest
from tests.broker_process import BrokerProcess, own_broker
from tests.integration.groups.aiokafka_members import Member as AioMember
from tests.integration.groups.aiokafka_members import make_topic as aio_make_topic
from tests.integration.groups.aiokafka_members import produce, wait_for
from tests.integration.groups.consumer_members import assigned, consumer, poll_until, poll_until_positioned
from tests.integration.groups.group_settings import GROUP_OVERRIDES
from tests.integration.groups.other_clients import make_topic, rdkafka_consumer
from tests.kafka_wire import WireClient
from tests.names import unique


def group_type(bs: str, group: str) -> ConsumerGroupType:
    admin = AdminClient({"bootstrap.servers": bs})
    listed = admin.list_consumer_groups().result(10)
    return next(g.type for g in listed.valid if g.group_id == group)


def test_classic_and_consumer_members_share_a_group(group_broker: BrokerProcess) -> None:
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 4, 0)
    classic = rdkafka_consumer(bs, group, **{"enable.partition.eof": True})
    new = consumer(bs, group)
    seen: dict[int, list[int]] = {0: [], 1: []}
    try:
        classic.subscribe([topic])
        # All 4 partitions fetched at their position before the rebalance to come: none
        # still being looked up (see poll_until_positioned).
        poll_until_positioned(classic, 4)
        assert group_type(bs, group) == ConsumerGroupType.CLASSIC
        # The new protocol's member joins: the group is upgraded, the classic member stays.
        new.subscribe([topic])
        both = [classic, new]
        poll_until_positioned(classic, 2, others=(new,))
        poll_until(both, lambda: len(assigned(classic)) == 2 and len(assigned(new)) == 2)
        assert not assigned(classic) & assigned(new)
        producer = Producer({"bootstrap.servers": bs})
        for i in range(40):
            producer.produce(topic, str(i).encode(), partition=i % 4)
        assert producer.flush(15) == 0
        poll_until(both, lambda: len(seen[0]) + len(seen[1]) >= 40,
                   on_message=lambda i, m: seen[i].append(int(m.value() or b"")))
        # Each record once, each member its own partitions' records.
        assert sorted(seen[0] + seen[1]) == list(range(40))
        assert len(seen[0]) == len(seen[1]) == 20
        assert group_type(bs, group) == ConsumerGroupType.CONSUMER
        # Both commit as members of the consumer group.
        for c in both:
            c.commit(asynchronous=False)
        committed = classic.committed([CTP(topic, p) for p in range(4)], timeout=10)
        assert sum(tp.offset for tp in committed) == 40
        # The new member leaves: the group is classic again and its member takes everything.
        new.close()
        poll_until([classic], lambda: len(assigned(classic)) == 4)
        assert group_type(bs, group) == ConsumerGroupType.CLASSIC
        # It resumes from the commits, the new member's included, and commits again.
        for i in range(40, 44):
            producer.produce(topic, str(i).encode(), partition=i % 4)
        assert producer.flush(15) == 0
        later: list[int] = []
        poll_until([classic], lambda: len(later) >= 4, on_message=lambda _, m: later.append(int(m.value() or b"")))
        assert sorted(later) == [40, 41, 42, 43]
        classic.commit(asynchronous=False)
        committed = classic.committed([CTP(topic, p) for p in range(4)], timeout=10)
        assert sum(tp.offset for tp in committed) == 44
    finally:
        classic.close()
        new.close()


@pytest.fixture
def upgrade_disabled_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    yield from own_broker(tmp_path / "data", {**GROUP_OVERRIDES, "group.consumer.migration.policy": "downgrade"})


def test_no_upgrade_when_the_policy_forbids_it(upgrade_disabled_broker: BrokerProcess) -> None:
    bs, topic, group = upgrade_disabled_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 2, 0)
    classic = rdkafka_consumer(bs, group)
    try:
        classic.subscribe([topic])
        poll_until([classic], lambda: len(assigned(classic)) == 2)
        with WireClient(bs) as c:
            response = c.call(68, 0, ConsumerGroupHeartbeatRequest(
                group_id=group, member_id="m-new", member_epoch=0, rebalance_timeout_ms=60_000,
                subscribed_topic_names=[topic], topic_partitions=[]))
        assert response.error_code == ErrorCode.GROUP_ID_NOT_FOUND  # type: ignore[attr-defined]
        assert group_type(bs, group) == ConsumerGroupType.CLASSIC
    finally:
        classic.close()


async def test_aiokafka_as_the_classic_member(group_broker: BrokerProcess) -> None:
    """aiokafka (classic protocol only, eager) beside a confluent-kafka member of the new one."""
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    await aio_make_topic(bs, topic, 4, 0)
    classic = AioMember(bs, topic, group)
    new = consumer(bs, group)
    seen_new: list[int] = []
    running = True

    async def poll_new() -> None:
        while running:
            msg = await asyncio.to_thread(new.poll, 0.1)
            if msg is not None and msg.error() is None:
                seen_new.append(int(msg.value() or b""))

    task: asyncio.Task[None] | None = None
    try:
        await classic.start()
        await wait_for(lambda: len(classic.assignment()) == 4)
        new.subscribe([topic])
        task = asyncio.ensure_future(poll_new())
        await wait_for(lambda: len(classic.assignment()) == 2 and len(assigned(new)) == 2, timeout=40)
        assert group_type(bs, group) == ConsumerGroupType.CONSUMER
        await produce(bs, topic, 4, range(40))
        await wait_for(lambda: len(classic.seen) + len(seen_new) >= 40)
        assert sorted(classic.seen + seen_new) == list(range(40))
        assert len(classic.seen) == len(seen_new) == 20
    finally:
        running = False
        if task is not None:
            await task
        new.close()
        await classic.stop()
