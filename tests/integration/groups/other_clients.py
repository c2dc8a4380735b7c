"""Topics and consumers of confluent-kafka (librdkafka), for the group tests."""

from __future__ import annotations

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic


def make_topic(bs: str, topic: str, partitions: int, records: int) -> None:
    admin = AdminClient({"bootstrap.servers": bs})
    for f in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        f.result(15)
    producer = Producer({"bootstrap.servers": bs})
    for i in range(records):
        producer.produce(topic, str(i).encode(), partition=i % partitions)
    assert producer.flush(15) == 0


def rdkafka_consumer(bs: str, group: str, **extra: object) -> Consumer:
    conf = {"bootstrap.servers": bs, "group.id": group, "auto.offset.reset": "earliest",
            "session.timeout.ms": 3000, "heartbeat.interval.ms": 300, "enable.auto.commit": False,
            "topic.metadata.refresh.interval.ms": 1000}
    conf.update(extra)
    return Consumer(conf)
