"""ListOffsets answers only below the last fetchable offset of the request's isolation level:
the LSO for read_committed, the high watermark for read_uncommitted (v0-1 carry no level
and read uncommitted). Modelled on Kafka's
TransactionsTest.testReadCommittedConsumerShouldNotSeeUndecidedData."""

from __future__ import annotations

import time
from typing import Any

import pytest

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.add_partitions_to_txn_request import AddPartitionsToTxnRequest, AddPartitionsToTxnTopic
from protocol.messages.create_topics_request import CreatableTopic, CreateTopicsRequest
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.list_offsets_request import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient
from tests.names import unique

E = ErrorCode
LIST_OFFSETS = 2
READ_UNCOMMITTED, READ_COMMITTED = 0, 1
LATEST, MAX_TIMESTAMP = -1, -3
NOT_FOUND = (-1, -1)


def produce(c: WireClient, topic: str, batch: bytes, tid: str | None = None) -> int:
    resp: Any = c.call(0, 9, ProduceRequest(transactional_id=tid, acks=-1, timeout_ms=10_000, topic_data=[
        TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=batch)])
    ]))
    p = resp.responses[0].partition_responses[0]
    assert p.error_code == E.NONE
    base: int = p.base_offset
    return base


def retry_concurrent(call: Any) -> None:
    deadline = time.monotonic() + 10
    while (code := call()) == E.CONCURRENT_TRANSACTIONS:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert code == E.NONE


def list_offset(c: WireClient, topic: str, timestamp: int, *, level: int = READ_UNCOMMITTED,
                version: int = 7) -> tuple[int, int]:
    resp: Any = c.call(LIST_OFFSETS, version, ListOffsetsRequest(
        replica_id=-1, isolation_level=level,
        topics=[ListOffsetsTopic(name=topic, partitions=[ListOffsetsPartition(partition_index=0, timestamp=timestamp)])],
    ))
    p = resp.topics[0].partitions[0]
    assert p.error_code == E.NONE
    return p.offset, p.timestamp


class OpenTransaction:
    """Two plain records, then a transaction of two records left open."""

    def __init__(self, c: WireClient) -> None:
        self.c = c
        self.topic = unique("lo")
        self.tid = unique("lo-txn")
        resp: Any = c.call(19, 7, CreateTopicsRequest(
            topics=[CreatableTopic(name=self.topic, num_partitions=1, replication_factor=1)], timeout_ms=10_000))
        assert resp.topics[0].error_code == E.NONE
        self.t0 = int(time.time() * 1000) - 60_000
        plain = rb.build_batch([rb.Record(b"k", b"p%d" % i, [], self.t0 + 10 * i) for i in range(2)])
        assert produce(c, self.topic, plain) == 0  # offsets 0-1 at t0, t0+10
        init: Any = c.call(22, 4, InitProducerIdRequest(transactional_id=self.tid, transaction_timeout_ms=60_000))
        assert init.error_code == E.NONE
        self.pid, self.epoch = init.producer_id, init.producer_epoch

        def add() -> int:
            r: Any = c.call(24, 3, AddPartitionsToTxnRequest(
                v3_and_below_transactional_id=self.tid, v3_and_below_producer_id=self.pid,
                v3_and_below_producer_epoch=self.epoch,
                v3_and_below_topics=[AddPartitionsToTxnTopic(name=self.topic, partitions=[0])],
            ))
            code: int = r.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code
            return code

        retry_concurrent(add)
        txn = rb.build_batch(
            [rb.Record(b"k", b"t%d" % i, [], self.t0 + 1000 + 10 * i) for i in range(2)],
            producer_id=self.pid, producer_epoch=self.epoch, base_sequence=0, transactional=True,
        )
        assert produce(c, self.topic, txn, self.tid) == 2  # offsets 2-3 at t0+1000, t0+1010

    def end(self, commit: bool) -> None:
        def end_txn() -> int:
            r: Any = self.c.call(26, 3, EndTxnRequest(transactional_id=self.tid, producer_id=self.pid,
                                                      producer_epoch=self.epoch, committed=commit))
            code: int = r.error_code
            return code

        retry_concurrent(end_txn)
        # The markers are written after EndTxn answers: wait for the LSO to pass them.
        deadline = time.monotonic() + 10
        while list_offset(self.c, self.topic, LATEST, level=READ_COMMITTED)[0] != 5:
            assert time.monotonic() < deadline
            time.sleep(0.02)


def test_open_transaction_hides_its_records_from_read_committed_lookups(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as c:
        txn = OpenTransaction(c)
        topic, t0 = txn.topic, txn.t0
        # Latest: the LSO vs the high watermark.
        assert list_offset(c, topic, LATEST, level=READ_COMMITTED) == (2, -1)
        assert list_offset(c, topic, LATEST, level=READ_UNCOMMITTED) == (4, -1)
        # A timestamp whose first record is below the LSO: both levels find it.
        assert list_offset(c, topic, t0 + 5, level=READ_COMMITTED) == (1, t0 + 10)
        assert list_offset(c, topic, t0 + 5, level=READ_UNCOMMITTED) == (1, t0 + 10)
        # A timestamp whose first record is undecided: read_committed gets no offset.
        assert list_offset(c, topic, t0 + 500, level=READ_COMMITTED) == NOT_FOUND
        assert list_offset(c, topic, t0 + 1010, level=READ_COMMITTED) == NOT_FOUND
        assert list_offset(c, topic, t0 + 500, level=READ_UNCOMMITTED) == (2, t0 + 1000)
        # Max timestamp: its record is undecided, so read_committed has none.
        assert list_offset(c, topic, MAX_TIMESTAMP, level=READ_COMMITTED) == NOT_FOUND
        assert list_offset(c, topic, MAX_TIMESTAMP, level=READ_UNCOMMITTED) == (3, t0 + 1010)
        # Past every record: nothing for either level.
        assert list_offset(c, topic, t0 + 5000, level=READ_UNCOMMITTED) == NOT_FOUND

        txn.end(commit=True)
        assert list_offset(c, topic, t0 + 500, level=READ_COMMITTED) == (2, t0 + 1000)
        # The COMMIT marker (offset 4) is stamped with the broker's clock: now the latest.
        assert list_offset(c, topic, MAX_TIMESTAMP, level=READ_COMMITTED)[0] == 4


@pytest.mark.parametrize("version", [1, 2, 5])
def test_isolation_level_exists_from_v2(broker: BrokerProcess, version: int) -> None:
    """v0-1 have no isolation level: a read_committed intent cannot be expressed and the
    request reads uncommitted; from v2 the level bounds the lookup."""
    with WireClient(broker.bootstrap) as c:
        txn = OpenTransaction(c)
        committed = list_offset(c, txn.topic, txn.t0 + 500, level=READ_COMMITTED, version=version)
        uncommitted = list_offset(c, txn.topic, txn.t0 + 500, level=READ_UNCOMMITTED, version=version)
        assert uncommitted == (2, txn.t0 + 1000)
        assert committed == (uncommitted if version < 2 else NOT_FOUND)
        latest = list_offset(c, txn.topic, LATEST, level=READ_COMMITTED, version=version)
        assert latest == ((4, -1) if version < 2 else (2, -1))
        txn.end(commit=False)
        # Aborted records stay in the log below the LSO: a timestamp lookup finds them.
        assert list_offset(c, txn.topic, txn.t0 + 500, level=READ_COMMITTED, version=version) == (2, txn.t0 + 1000)


@pytest.mark.parametrize("level", ["read_committed", "read_uncommitted"])
def test_confluent_offsets_for_times_follows_the_isolation_level(broker: BrokerProcess, level: str) -> None:
    from confluent_kafka import Consumer, TopicPartition

    with WireClient(broker.bootstrap) as c:
        txn = OpenTransaction(c)
        consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": unique("g"),
                             "isolation.level": level})
        try:
            [found] = consumer.offsets_for_times([TopicPartition(txn.topic, 0, txn.t0 + 500)], timeout=10)
        finally:
            consumer.close()
        assert found.error is None
        # librdkafka reports "no such offset" as -1 (its OFFSET_END).
        assert found.offset == (-1 if level == "read_committed" else 2)
