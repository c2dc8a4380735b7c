"""DescribeProducers v0 (KIP-664) over the wire: active producers of a partition, an open
transaction's start offset, and the admin abort of a hanging transaction it enables."""

from __future__ import annotations

import time
from typing import Any

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.describe_producers_request import DescribeProducersRequest, TopicRequest
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from protocol.messages.write_txn_markers_request import (
    WritableTxnMarker,
    WritableTxnMarkerTopic,
    WriteTxnMarkersRequest,
)
from tests.broker_process import BrokerProcess
from tests.kafka_wire import (
    WireClient,
    add_partition,
    create_topic,
    end_txn,
    fetch_partition,
    init_producer_id,
    producer_batch,
)
from tests.names import unique

E = ErrorCode


def produce(c: WireClient, topic: str, records: bytes, tid: str | None = None) -> tuple[int, int]:
    resp: Any = c.call(0, 9, ProduceRequest(
        transactional_id=tid, acks=-1, timeout_ms=10_000,
        topic_data=[TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=records)])],
    ))
    p = resp.responses[0].partition_responses[0]
    return p.error_code, p.base_offset


def describe(c: WireClient, topics: dict[str, list[int]]) -> dict[tuple[str, int], Any]:
    resp: Any = c.call(61, 0, DescribeProducersRequest(
        topics=[TopicRequest(name=t, partition_indexes=ps) for t, ps in topics.items()]
    ))
    return {(t.name, p.partition_index): p for t in resp.topics for p in t.partitions}


def producers(c: WireClient, topic: str) -> dict[int, Any]:
    part = describe(c, {topic: [0]})[(topic, 0)]
    assert part.error_code == E.NONE
    return {p.producer_id: p for p in part.active_producers}


def test_describe_producers_idempotent_and_transactional(broker: BrokerProcess) -> None:
    topic = unique("producers")
    tid = unique("tid")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        assert producers(c, topic) == {}
        before = int(time.time() * 1000)
        idem, idem_epoch = init_producer_id(c, None)
        assert produce(c, topic, producer_batch(idem, idem_epoch, 0, 3)) == (E.NONE, 0)
        found = producers(c, topic)[idem]
        assert (found.producer_epoch, found.last_sequence, found.current_txn_start_offset) == (idem_epoch, 2, -1)
        assert found.last_timestamp >= before and found.coordinator_epoch == -1
        pid, epoch = init_producer_id(c, tid)
        add_partition(c, tid, pid, epoch, topic)
        assert produce(c, topic, producer_batch(pid, epoch, 0, 2, txn=True), tid) == (E.NONE, 3)
        assert producers(c, topic)[pid].current_txn_start_offset == 3
        assert producers(c, topic)[pid].last_sequence == 1
        end_txn(c, tid, pid, epoch, commit=True)
        deadline = time.monotonic() + 10
        while producers(c, topic)[pid].current_txn_start_offset != -1:  # the marker is written async
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert set(producers(c, topic)) == {idem, pid}


def test_unknown_partitions(broker: BrokerProcess) -> None:
    topic = unique("known")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        result = describe(c, {topic: [0, 7], unique("no-such-topic"): [0]})
        codes = sorted(p.error_code for p in result.values())
        assert codes == sorted([E.NONE, E.UNKNOWN_TOPIC_OR_PARTITION, E.UNKNOWN_TOPIC_OR_PARTITION])


def test_find_and_abort_a_hanging_transaction(broker: BrokerProcess) -> None:
    """KIP-664's admin path: DescribeProducers shows a transaction pinning the LSO, and
    WriteTxnMarkers aborts it at the partition; read_committed consumers then pass it."""
    topic = unique("hanging")
    tid = unique("tid")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        assert produce(c, topic, producer_batch(-1, -1, -1, 1)) == (E.NONE, 0)
        pid, epoch = init_producer_id(c, tid)
        add_partition(c, tid, pid, epoch, topic)
        assert produce(c, topic, producer_batch(pid, epoch, 0, 3, txn=True), tid) == (E.NONE, 1)
        assert produce(c, topic, producer_batch(-1, -1, -1, 1)) == (E.NONE, 4)
        held = fetch_partition(c, topic, committed=True)
        assert (held.high_watermark, held.last_stable_offset) == (5, 1)
        # Find it: the producer whose open transaction starts at the LSO.
        hanging = [p for p in producers(c, topic).values() if p.current_txn_start_offset == held.last_stable_offset]
        assert [(p.producer_id, p.producer_epoch) for p in hanging] == [(pid, epoch)]
        found = hanging[0]
        # Abort it the way kafka-transactions.sh does: an ABORT marker with its epoch.
        resp: Any = c.call(27, 1, WriteTxnMarkersRequest(markers=[WritableTxnMarker(
            producer_id=found.producer_id, producer_epoch=found.producer_epoch, transaction_result=False,
            coordinator_epoch=max(found.coordinator_epoch, 0),
            topics=[WritableTxnMarkerTopic(name=topic, partition_indexes=[0])],
        )]))
        assert resp.markers[0].topics[0].partitions[0].error_code == E.NONE
        assert producers(c, topic)[pid].current_txn_start_offset == -1
        part = fetch_partition(c, topic, committed=True)
        assert part.last_stable_offset == part.high_watermark == 6
        assert [(a.producer_id, a.first_offset) for a in part.aborted_transactions] == [(pid, 1)]
        batches = [h for _, h in rb.iter_batches(part.records)]
        # What a read_committed consumer keeps: the two plain records around the abort.
        visible = [h.base_offset for h in batches
                   if not h.is_control and not (h.producer_id == pid and h.is_transactional)]
        assert visible == [0, 4]

