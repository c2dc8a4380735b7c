"""A broker killed (SIGKILL) with records of a share group in flight: after the restart every
acknowledged record stays acknowledged (its acknowledgement was answered once durable in
`__share_group_state`) and every unacknowledged one is delivered again; the group's
membership (epochs, members, assignments) is as it was."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from confluent_kafka import AcknowledgeType

from odradek.testing import OdradekBroker
from protocol.errors import ErrorCode as E
from protocol.messages.share_group_describe_request import ShareGroupDescribeRequest
from protocol.messages.share_group_heartbeat_request import ShareGroupHeartbeatRequest
from tests.integration.share.share_clients import (
    consumer,
    create_topic,
    new_name,
    poll_records,
    produce,
    share_group,
)
from tests.kafka_wire import WireClient


def test_sigkill_keeps_acknowledgements_and_redelivers_the_rest(fresh_broker: OdradekBroker) -> None:
    bs = fresh_broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, (f"r{i}" for i in range(20)), batch=5)
    group = share_group(bs)
    old = consumer(bs, group, topic, explicit=True)
    held = []  # every record of the first delivery
    deadline = time.monotonic() + 30
    while len(held) < 20 and time.monotonic() < deadline:
        got = poll_records(old)
        for m in got:
            # Even offsets accepted, odd ones left in flight.
            if m.offset() % 2 == 0:
                old.acknowledge(m, AcknowledgeType.ACCEPT)
            else:
                held.append(m)
        held += [m for m in got if m.offset() % 2 == 0]
        if got:
            assert all(v is None for v in old.commit_sync().values())
    assert sorted(m.offset() for m in held) == list(range(20))

    fresh_broker.kill()
    fresh_broker.start()
    # The old member's records are local state now; it may fetch again once it released them.
    for m in held:
        if m.offset() % 2 == 1:
            with contextlib.suppress(Exception):
                old.acknowledge(m, AcknowledgeType.RELEASE)
    new = consumer(bs, group, topic, explicit=True)
    redelivered: dict[int, int] = {}
    again: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while set(redelivered) != set(range(1, 20, 2)) and time.monotonic() < deadline:
            for c in (new, old):
                got = []
                # The old member may refuse to poll (its state from before the crash).
                with contextlib.suppress(Exception):
                    got = poll_records(c, 0.5)
                for m in got:
                    if m.offset() % 2 == 0:
                        again.append(m.offset())
                    redelivered[m.offset()] = m.delivery_count()
                    c.acknowledge(m, AcknowledgeType.ACCEPT)
                if got:
                    c.commit_sync()
        assert again == [], "acknowledged records delivered again"
        assert sorted(redelivered) == list(range(1, 20, 2))
        # Kafka writes no acquisition (SharePartition persists acknowledgements, releases and
        # lock timeouts): the delivery in flight at the crash is not counted.
        assert set(redelivered.values()) == {1}
        assert poll_records(new, 1.0) == []
    finally:
        with contextlib.suppress(Exception):
            new.close()
        with contextlib.suppress(Exception):
            old.close()


def test_membership_survives_sigkill(fresh_broker: OdradekBroker) -> None:
    """The group's epochs and members are in `__consumer_offsets` (Kafka's share group
    records), written before a heartbeat is answered: after SIGKILL the members heartbeat on
    at their epochs, and ShareGroupDescribe shows the same group."""
    bs = fresh_broker.bootstrap
    topic = create_topic(bs, partitions=2)
    group = new_name("sg")

    def beat(c: WireClient, member: str, epoch: int, topics: list[str] | None = None) -> Any:
        return c.call(76, 1, ShareGroupHeartbeatRequest(group_id=group, member_id=member, member_epoch=epoch,
                                                        subscribed_topic_names=topics))

    def described(c: WireClient) -> tuple[int, int, list[tuple[str, int, list[int]]]]:
        [g] = c.call(77, 1, ShareGroupDescribeRequest(group_ids=[group])).groups
        assert g.error_code == E.NONE
        members = sorted((m.member_id, m.member_epoch, sorted(p for t in m.assignment.topic_partitions
                                                              for p in t.partitions)) for m in g.members)
        return g.group_epoch, g.assignment_epoch, members

    with WireClient(bs) as c:
        m1 = beat(c, "m1", 0, [topic])
        m2 = beat(c, "m2", 0, [topic])
        m1 = beat(c, "m1", m1.member_epoch)
        assert (m1.error_code, m1.member_epoch, m2.member_epoch) == (E.NONE, 2, 2)
        before = described(c)
    assert before[:2] == (2, 2) and [m[:2] for m in before[2]] == [("m1", 2), ("m2", 2)]

    fresh_broker.kill()
    fresh_broker.start()
    with WireClient(bs) as c:
        assert described(c) == before
        for member in ("m1", "m2"):
            again = beat(c, member, 2)
            assert (again.error_code, again.member_epoch) == (E.NONE, 2)
        assert described(c) == before
