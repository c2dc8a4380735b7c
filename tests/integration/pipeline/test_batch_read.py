"""Batch reads through the `odradek` source against the real broker: committed data only."""

from __future__ import annotations

import pytest
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient
from pyspark.sql import SparkSession

from tests.broker_process import BrokerProcess
from tests.integration.pipeline.kafka_data import (
    HELD_OPEN_TIMEOUT_MS,
    create_topic,
    produce_txn,
    read_committed,
    transactional_producer,
)


def test_batch_read_returns_exactly_the_committed_records(
    spark: SparkSession, broker: BrokerProcess, name: str
) -> None:
    topic = f"{name}-in"
    create_topic(broker.bootstrap, topic, 3)
    producer = transactional_producer(broker.bootstrap, f"{name}-gen")
    committed: set[bytes] = set()
    for i in range(6):
        rows = [(p, f"k{i}".encode(), f"v{i}-{p}-{j}".encode()) for p in range(3) for j in range(5)]
        commit = i % 3 != 1  # every third transaction aborted
        produce_txn(producer, topic, rows, commit)
        if commit:
            committed.update(v for _, _, v in rows)
    # The last transaction on partition 2 is aborted: that range ends on aborted data and a marker.
    produce_txn(producer, topic, [(2, b"x", b"aborted-tail")], commit=False)
    # An open transaction on partition 1 holds its LSO: its records must not be read.
    other = transactional_producer(broker.bootstrap, f"{name}-open", HELD_OPEN_TIMEOUT_MS)
    produce_txn(other, topic, [(1, b"o", b"open-1"), (1, b"o", b"open-2")], commit=None)

    df = (
        spark.read.format("odradek")
        .option("kafka.bootstrap.servers", broker.bootstrap)
        .option("subscribe", topic)
        .load()
    )
    rows = df.collect()

    assert sorted(r.value for r in rows) == sorted(committed)
    assert len(rows) == 60
    expected = {(p, o, v) for p, o, _k, v in read_committed(broker.bootstrap, topic, 3)}
    assert {(r.partition, r.offset, r.value) for r in rows} == expected
    assert {r.topic for r in rows} == {topic}
    assert all(r.timestampType == 0 and r.timestamp is not None for r in rows)
    assert df.schema.simpleString() == (
        "struct<key:binary,value:binary,topic:string,partition:int,offset:bigint,"
        "timestamp:timestamp,timestampType:int>"
    )
    other.abort_transaction(30)


def test_headers_offset_ranges_and_split_ranges(
    spark: SparkSession, broker: BrokerProcess, name: str
) -> None:
    topic = f"{name}-hdr"
    create_topic(broker.bootstrap, topic, 2)
    producer = transactional_producer(broker.bootstrap, f"{name}-gen")
    producer.begin_transaction()
    for i in range(40):
        producer.produce(
            topic, value=f"v{i}".encode(), key=None, partition=i % 2, headers=[("h", f"{i}".encode())]
        )
    producer.commit_transaction(30)

    reader = (
        spark.read.format("odradek")
        .option("kafka.bootstrap.servers", broker.bootstrap)
        .option("assign", f'{{"{topic}":[0,1]}}')
        .option("includeHeaders", "true")
        .option("startingOffsets", f'{{"{topic}":{{"0":5,"1":-2}}}}')
        .option("endingOffsets", f'{{"{topic}":{{"0":15,"1":-1}}}}')
        .option("maxRecordsPerPartition", "4")
    )
    df = reader.load()
    # Partition 0: offsets 5..14 in 3 pieces; partition 1: 0..20 (20 records + the commit marker) in 6.
    assert df.rdd.getNumPartitions() == 3 + 6
    rows = df.collect()
    got = sorted((r.partition, r.offset, r.value, [(h.key, h.value) for h in r.headers]) for r in rows)
    expected = sorted(
        [(0, o, f"v{2 * o}".encode(), [("h", f"{2 * o}".encode())]) for o in range(5, 15)]
        + [(1, o, f"v{2 * o + 1}".encode(), [("h", f"{2 * o + 1}".encode())]) for o in range(20)]
    )
    assert got == expected
    assert all(r.key is None for r in rows)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"subscribe": "{topic}"}, "kafka.bootstrap.servers"),
        ({"kafka.bootstrap.servers": "{bootstrap}"}, "subscribe"),
        (
            {"kafka.bootstrap.servers": "{bootstrap}", "subscribe": "{topic}", "assign": '{{"{topic}":[0]}}'},
            "assign",
        ),
        (
            {"kafka.bootstrap.servers": "{bootstrap}", "subscribe": "{topic}", "startingOffsets": "{{bad"},
            "startingOffsets",
        ),
        (
            {"kafka.bootstrap.servers": "{bootstrap}", "subscribe": "{topic}", "endingOffsets": "earliest"},
            "endingOffsets",
        ),
        (
            {"kafka.bootstrap.servers": "{bootstrap}", "subscribe": "{topic}", "kafka.group.id": "g"},
            "kafka.group.id",
        ),
        ({"kafka.bootstrap.servers": "{bootstrap}", "subscribe": "{topic}-missing"}, "subscribe"),
    ],
)
def test_wrong_options_fail_at_planning_naming_the_option(
    spark: SparkSession, broker: BrokerProcess, name: str, options: dict[str, str], named: str
) -> None:
    topic = f"{name}-opt"
    create_topic(broker.bootstrap, topic, 1)
    reader = spark.read.format("odradek")
    for key, value in options.items():
        reader = reader.option(key, value.format(topic=topic, bootstrap=broker.bootstrap))
    with pytest.raises(Exception, match=r"OptionError: .*option") as failure:
        reader.load().collect()
    assert f"'{named}'" in str(failure.value)


def test_deleted_offsets_fail_the_read_unless_fail_on_data_loss_is_false(
    spark: SparkSession, broker: BrokerProcess, name: str
) -> None:
    topic = f"{name}-del"
    create_topic(broker.bootstrap, topic, 1)
    producer = transactional_producer(broker.bootstrap, f"{name}-gen")
    produce_txn(producer, topic, [(0, None, f"v{i}".encode()) for i in range(20)], commit=True)
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.delete_records([TopicPartition(topic, 0, 10)])[TopicPartition(topic, 0, 10)].result(30)

    def read(fail_on_data_loss: str) -> list[bytes]:
        df = (
            spark.read.format("odradek")
            .option("kafka.bootstrap.servers", broker.bootstrap)
            .option("subscribe", topic)
            .option("startingOffsets", f'{{"{topic}":{{"0":0}}}}')
            .option("failOnDataLoss", fail_on_data_loss)
            .load()
        )
        return [r.value for r in df.orderBy("offset").collect()]

    with pytest.raises(Exception, match=r"offsets \[0, 10\) .* were deleted"):
        read("true")
    assert read("false") == [f"v{i}".encode() for i in range(10, 20)]
