"""Consumer groups with confluent-kafka (librdkafka) and kafka-python."""

from __future__ import annotations

import time

from confluent_kafka import ConsumerGroupTopicPartitions
from confluent_kafka import TopicPartition as CTP
from confluent_kafka.admin import AdminClient
from kafka import KafkaAdminClient, KafkaConsumer
from kafka import TopicPartition as KTP
from kafka.structs import OffsetAndMetadata

from tests.broker_process import BrokerProcess
from tests.integration.groups.other_clients import make_topic, rdkafka_consumer
from tests.names import unique


def test_confluent_group_splits_partitions_and_consumes_once(group_broker: BrokerProcess) -> None:
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 4, 40)
    consumers = [rdkafka_consumer(bs, group) for _ in range(2)]
    seen: list[list[int]] = [[], []]
    try:
        for c in consumers:
            c.subscribe([topic])
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            for i, c in enumerate(consumers):
                msg = c.poll(0.05)
                if msg is not None and msg.error() is None:
                    seen[i].append(int(msg.value() or b""))
                    c.commit(message=msg, asynchronous=False)
            a, b = ({(tp.topic, tp.partition) for tp in c.assignment()} for c in consumers)
            if len(seen[0]) + len(seen[1]) >= 40 and a and b and not a & b and len(a | b) == 4:
                break
        assert sorted(seen[0] + seen[1]) == list(range(40))
        assert a and b and not a & b and len(a | b) == 4
    finally:
        for c in consumers:
            c.close()
    admin = AdminClient({"bootstrap.servers": bs})
    listed = admin.list_consumer_groups().result(10)
    assert group in {g.group_id for g in listed.valid}
    desc = admin.describe_consumer_groups([group])[group].result(10)
    assert desc.group_id == group and str(desc.state).endswith("EMPTY")
    offsets = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(10)
    assert sum(tp.offset for tp in offsets.topic_partitions) == 40
    admin.delete_consumer_groups([group])[group].result(10)
    assert group not in {g.group_id for g in admin.list_consumer_groups().result(10).valid}


def test_confluent_manual_assignment_commits(group_broker: BrokerProcess) -> None:
    """Standalone consumer: commits with no group membership (generation -1)."""
    bs, group = group_broker.bootstrap, unique("g")
    topic = unique("manual")
    make_topic(bs, topic, 3, 0)
    c = rdkafka_consumer(bs, group)
    try:
        c.commit(offsets=[CTP(topic, 0, 17), CTP(topic, 1, 4)], asynchronous=False)
        got = c.committed([CTP(topic, 0), CTP(topic, 1), CTP(topic, 2)], timeout=10)
        assert [tp.offset for tp in got] == [17, 4, -1001]
    finally:
        c.close()


def test_kafka_python_commit_fetch_and_admin(group_broker: BrokerProcess) -> None:
    bs, group = group_broker.bootstrap, unique("g")
    topic = unique("kp")
    make_topic(bs, topic, 1, 0)
    consumer = KafkaConsumer(bootstrap_servers=bs, group_id=group, enable_auto_commit=False)
    try:
        consumer.commit({KTP(topic, 0): OffsetAndMetadata(11, "meta", -1)})
        assert consumer.committed(KTP(topic, 0)) == 11
    finally:
        consumer.close()
    admin = KafkaAdminClient(bootstrap_servers=bs)
    try:
        assert group in {g["group_id"] for g in admin.list_groups()}
        assert group in {g["group_id"] for g in admin.list_groups(states_filter=["Empty"])}
        offsets = admin.list_group_offsets({group: None})[group]  # multi-group OffsetFetch
        assert offsets[KTP(topic, 0)].offset == 11
        described = admin.describe_groups([group])[group]
        assert described["group_state"] == "Empty"
        deleted = admin.delete_group_offsets(group, [KTP(topic, 0)])
        assert deleted[KTP(topic, 0)].__name__ == "NoError"
        # its last offset gone, the Empty group is removed too (Kafka's cleanupGroupMetadata)
        assert group not in {g["group_id"] for g in admin.list_groups()}
    finally:
        admin.close()


def test_kafka_python_group_consumes_everything(group_broker: BrokerProcess) -> None:
    bs, topic, group = group_broker.bootstrap, unique("t"), unique("g")
    make_topic(bs, topic, 3, 30)
    consumer = KafkaConsumer(topic, bootstrap_servers=bs, group_id=group, auto_offset_reset="earliest",
                             session_timeout_ms=6000, heartbeat_interval_ms=500, consumer_timeout_ms=15000)
    seen = []
    try:
        for msg in consumer:
            seen.append(int(msg.value))
            if len(seen) == 30:
                break
        consumer.commit()
        assert sorted(seen) == list(range(30))
        assert len(consumer.assignment()) == 3
    finally:
        consumer.close()
