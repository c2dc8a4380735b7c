"""KIP-848 consumer groups with confluent-kafka (`group.protocol=consumer`): the broker
computes the assignment and members reconcile towards it through ConsumerGroupHeartbeat."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import ConsumerGroupState, ConsumerGroupType, Message
from confluent_kafka import TopicPartition as CTP
from confluent_kafka.admin import AdminClient

from protocol.messages.consumer_group_describe_request import ConsumerGroupDescribeRequest
from protocol.messages.consumer_group_describe_response import ConsumerGroupDescribeResponse, DescribedGroup
from tests.broker_process import BrokerProcess, own_broker
from tests.integration.groups.consumer_members import assigned, consumer, poll_until
from tests.integration.groups.group_settings import GROUP_OVERRIDES
from tests.integration.groups.other_clients import make_topic
from tests.kafka_wire import WireClient
from tests.names import unique


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


def test_rebalance_on_member_join_and_leave(group_broker: BrokerProcess) -> None:
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 4, 0)
    everything = {(topic, p) for p in range(4)}
    a = consumer(bs, group)
    b = consumer(bs, group)
    try:
        a.subscribe([topic])
        poll_until([a], lambda: assigned(a) == everything)
        b.subscribe([topic])
        poll_until([a, b], lambda: len(assigned(a)) == 2 and len(assigned(b)) == 2)
        assert assigned(a) | assigned(b) == everything
        b.close()
        poll_until([a], lambda: assigned(a) == everything)
    finally:
        a.close()


def test_commit_and_resume(group_broker: BrokerProcess) -> None:
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 2, 20)
    first = consumer(bs, group)
    got: list[int] = []
    try:
        first.subscribe([topic])

        def take(_: int, msg: Message) -> None:
            if len(got) < 12:
                got.append(int(msg.value() or b""))
                first.commit(message=msg, asynchronous=False)

        poll_until([first], lambda: len(got) >= 12, on_message=take)
    finally:
        first.close()
    second = consumer(bs, group)
    rest: list[int] = []
    try:
        second.subscribe([topic])
        poll_until([second], lambda: len(got) + len(rest) >= 20,
                   on_message=lambda _, m: rest.append(int(m.value() or b"")))
    finally:
        second.close()
    # Nothing committed is read again, nothing is lost.
    assert sorted(got + rest) == list(range(20))


def test_static_member_gets_its_partitions_back(group_broker: BrokerProcess) -> None:
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 4, 0)
    a = consumer(bs, group, **{"group.instance.id": "static-a"})
    b = consumer(bs, group, **{"group.instance.id": "static-b"})
    try:
        a.subscribe([topic])
        b.subscribe([topic])
        poll_until([a, b], lambda: len(assigned(a)) == 2 and len(assigned(b)) == 2)
        mine = assigned(b)
        b.close()  # a static member leaves with epoch -2: its partitions wait for it
        admin = AdminClient({"bootstrap.servers": bs})
        described = admin.describe_consumer_groups([group])[group].result(10)
        assert len(described.members) == 2
        b = consumer(bs, group, **{"group.instance.id": "static-b"})
        b.subscribe([topic])
        poll_until([a, b], lambda: assigned(b) == mine)
        assert len(assigned(a)) == 2 and not assigned(a) & mine
    finally:
        a.close()
        b.close()


def test_regex_subscription(group_broker: BrokerProcess) -> None:
    bs, prefix, group = group_broker.bootstrap, unique("rx"), unique("g")
    make_topic(bs, f"{prefix}-one", 1, 3)
    make_topic(bs, f"{prefix}-two", 1, 3)
    make_topic(bs, unique("other"), 1, 3)
    c = consumer(bs, group)
    seen: list[str] = []
    try:
        c.subscribe([f"^{prefix}-.*"])
        poll_until([c], lambda: len(seen) >= 6, on_message=lambda _, m: seen.append(m.topic() or ""))
        assert sorted(set(seen)) == [f"{prefix}-one", f"{prefix}-two"]
        assert assigned(c) == {(f"{prefix}-one", 0), (f"{prefix}-two", 0)}
    finally:
        c.close()


# A consumer that joins, reports its assignment and then only polls, until it is killed.
KILLED_MEMBER = """
import sys
from confluent_kafka import Consumer
bs, topic, group = sys.argv[1:]
c = Consumer({"bootstrap.servers": bs, "group.id": group, "group.protocol": "consumer"})
c.subscribe([topic])
while True:
    c.poll(0.1)
    if c.assignment():
        print("assigned", flush=True)
        break
while True:
    c.poll(0.1)
"""


@pytest.fixture
def short_session_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    yield from own_broker(tmp_path / "data", {**GROUP_OVERRIDES, "group.consumer.session.timeout.ms": "3000"})


def test_killed_member_expires_and_its_partitions_move(short_session_broker: BrokerProcess) -> None:
    bs, topic, group = short_session_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 4, 0)
    proc = subprocess.Popen([sys.executable, "-c", KILLED_MEMBER, bs, topic, group], stdout=subprocess.PIPE)
    survivor = consumer(bs, group)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == b"assigned"
        survivor.subscribe([topic])
        poll_until([survivor], lambda: len(assigned(survivor)) == 2)
        proc.kill()  # no leave heartbeat: only the session timeout removes it
        proc.wait()
        poll_until([survivor], lambda: len(assigned(survivor)) == 4, seconds=30)
        admin = AdminClient({"bootstrap.servers": bs})
        described = admin.describe_consumer_groups([group])[group].result(10)
        assert len(described.members) == 1
    finally:
        if proc.poll() is None:
            proc.kill()
        survivor.close()


def describe(bs: str, group: str) -> DescribedGroup:
    with WireClient(bs) as client:
        response = client.call(69, 0, ConsumerGroupDescribeRequest(group_ids=[group]))
    assert isinstance(response, ConsumerGroupDescribeResponse)
    return response.groups[0]


def test_the_group_survives_a_broker_restart(fresh_group_broker: BrokerProcess) -> None:
    bs, topic, group = fresh_group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 4, 0)
    members = [consumer(bs, group) for _ in range(3)]
    try:
        for c in members:
            c.subscribe([topic])
        poll_until(members, lambda: sorted(len(assigned(c)) for c in members) == [1, 1, 2])
        members.pop().close()  # the group epoch moves on: 3 joins, 1 leave
        poll_until(members, lambda: [len(assigned(c)) for c in members] == [2, 2])
        # The members acknowledge their new assignment in a later heartbeat; until then the
        # group is Reconciling and may turn Stable between the describe and the restart.
        poll_until(members, lambda: describe(bs, group).group_state == "Stable")
        before = describe(bs, group)
        assert before.error_code == 0 and before.group_epoch == 4 and len(before.members) == 2
        fresh_group_broker.restart()
        after = describe(bs, group)
        assert (after.group_state, after.group_epoch, after.assignment_epoch) == \
            (before.group_state, before.group_epoch, before.assignment_epoch)
        assert sorted((m.member_id, m.member_epoch) for m in after.members) == \
            sorted((m.member_id, m.member_epoch) for m in before.members)
        # The members carry on at their epochs: no rejoin, no new group epoch.
        poll_until(members, lambda: [len(assigned(c)) for c in members] == [2, 2], seconds=5)
        time.sleep(2)  # a few heartbeats at 500 ms
        assert describe(bs, group).group_epoch == 4
    finally:
        for c in members:
            c.close()
