"""Share groups (KIP-932) with confluent-kafka's ShareConsumer: records shared between the
members of a share group, acknowledged one by one (accept, release, reject), delivered again
after a release or a lock timeout, archived at the delivery limit; read_committed share
groups skip aborted transactions."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from confluent_kafka import AcknowledgeType, Message, Producer

from odradek.testing import OdradekBroker
from tests.integration.share.conftest import LOCK_MS
from tests.integration.share.share_clients import (
    consumer,
    create_topic,
    poll_records,
    poll_until,
    produce,
    share_group,
)


@pytest.mark.parametrize("members", [2, 3])
def test_consumers_share_one_partition_every_record_once(share_broker: OdradekBroker, members: int) -> None:
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, (f"r{i}" for i in range(300)), batch=10)
    group = share_group(bs)
    consumers = [consumer(bs, group, topic, **{"max.poll.records": "20"}) for _ in range(members)]
    seen: list[Counter[int]] = [Counter() for _ in consumers]
    try:
        deadline = time.monotonic() + 60
        while sum(sum(c.values()) for c in seen) < 300 and time.monotonic() < deadline:
            for counts, c in zip(seen, consumers, strict=True):
                for m in poll_records(c, 0.5):
                    counts[m.offset()] += 1
        for c in consumers:
            assert all(v is None for v in c.commit_sync().values())
        total: Counter[int] = sum(seen, Counter())
        assert sorted(total) == list(range(300))
        assert set(total.values()) == {1}
        assert all(seen), "every member got records"
        # Everything was accepted: nothing more comes.
        assert all(poll_records(c, 1.0) == [] for c in consumers)
    finally:
        for c in consumers:
            c.close()


def test_release_redelivers_with_delivery_count_two(share_broker: OdradekBroker) -> None:
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, ["x"])
    c = consumer(bs, share_group(bs), topic, explicit=True)
    try:
        [m] = poll_until(c, 1)
        assert (m.offset(), m.delivery_count()) == (0, 1)
        c.acknowledge(m, AcknowledgeType.RELEASE)
        assert all(v is None for v in c.commit_sync().values())
        [again] = poll_until(c, 1)
        assert (again.offset(), again.value(), again.delivery_count()) == (0, b"x", 2)
        c.acknowledge(again, AcknowledgeType.ACCEPT)
        assert all(v is None for v in c.commit_sync().values())
        assert poll_records(c, 1.0) == []
    finally:
        c.close()


def test_reject_is_never_delivered_again(share_broker: OdradekBroker) -> None:
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, ["bad", "good"])
    c = consumer(bs, share_group(bs), topic, explicit=True)
    try:
        got = poll_until(c, 2)
        assert [m.value() for m in got] == [b"bad", b"good"]
        c.acknowledge(got[0], AcknowledgeType.REJECT)
        c.acknowledge(got[1], AcknowledgeType.ACCEPT)
        assert all(v is None for v in c.commit_sync().values())
        produce(bs, topic, ["later"])
        later = poll_until(c, 1)
        assert [(m.offset(), m.value()) for m in later] == [(2, b"later")]
        c.acknowledge(later[0])
        c.commit_sync()
    finally:
        c.close()


def test_records_of_a_consumer_that_stops_acknowledging_go_to_another(share_broker: OdradekBroker) -> None:
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, (f"r{i}" for i in range(5)))
    group = share_group(bs)
    stuck = consumer(bs, group, topic, explicit=True)
    other = consumer(bs, group, topic, explicit=True)
    try:
        held = poll_until(stuck, 5)
        assert [m.offset() for m in held] == [0, 1, 2, 3, 4]
        started = time.monotonic()
        # `stuck` never acknowledges: once its lock runs out the records go to `other`.
        redelivered = poll_until(other, 5, timeout=LOCK_MS / 1000 + 30)
        assert time.monotonic() - started >= LOCK_MS / 1000 * 0.5
        assert [(m.offset(), m.delivery_count()) for m in redelivered] == [(o, 2) for o in range(5)]
        for m in redelivered:
            other.acknowledge(m)
        assert all(v is None for v in other.commit_sync().values())
    finally:
        other.close()
        stuck.close()


def test_the_delivery_limit_archives_a_record(share_broker: OdradekBroker) -> None:
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    produce(bs, topic, ["poison"])
    c = consumer(bs, share_group(bs, share_delivery_count_limit="2"), topic, explicit=True)
    try:
        for delivery in (1, 2):
            [m] = poll_until(c, 1)
            assert (m.offset(), m.delivery_count()) == (0, delivery)
            c.acknowledge(m, AcknowledgeType.RELEASE)
            c.commit_sync()
        produce(bs, topic, ["next"])
        got = poll_until(c, 1)
        assert [(m.offset(), m.value()) for m in got] == [(1, b"next")]
        c.acknowledge(got[0])
        c.commit_sync()
    finally:
        c.close()


def test_read_committed_share_group_skips_aborted_transactions(share_broker: OdradekBroker) -> None:
    bs = share_broker.bootstrap
    topic = create_topic(bs)
    p = Producer({"bootstrap.servers": bs, "transactional.id": f"tx-{topic}"})
    p.init_transactions(15)
    p.begin_transaction()
    for v in ("a1", "a2", "a3"):
        p.produce(topic, value=v.encode())
    p.abort_transaction(15)
    p.begin_transaction()
    for v in ("c1", "c2"):
        p.produce(topic, value=v.encode())
    p.commit_transaction(15)
    produce(bs, topic, ["plain"])
    c = consumer(bs, share_group(bs, share_isolation_level="read_committed"), topic)
    try:
        got: list[Message] = poll_until(c, 3)
        assert [m.value() for m in got] == [b"c1", b"c2", b"plain"]
        c.commit_sync()
        assert poll_records(c, 1.0) == []
    finally:
        c.close()
