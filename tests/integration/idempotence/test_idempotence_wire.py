"""Idempotent and transactional produce at the partition leader, over the wire with exact
batches: duplicates, sequence errors, KIP-890 verification, WriteTxnMarkers."""

from __future__ import annotations

from typing import Any

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.write_txn_markers_request import (
    WritableTxnMarker,
    WritableTxnMarkerTopic,
    WriteTxnMarkersRequest,
)
from tests.broker_process import BrokerProcess
from tests.integration.idempotence.idempotent_produce import produce
from tests.kafka_wire import (
    WireClient,
    add_partition,
    create_topic,
    fetch_partition,
    init_producer_id,
    producer_batch,
)
from tests.names import unique

E = ErrorCode


def write_marker(c: WireClient, pid: int, epoch: int, parts: dict[str, list[int]], *, commit: bool = False,
                 version: int = 1) -> dict[tuple[str, int], int]:
    resp: Any = c.call(27, version, WriteTxnMarkersRequest(markers=[WritableTxnMarker(
        producer_id=pid, producer_epoch=epoch, transaction_result=commit, coordinator_epoch=0,
        topics=[WritableTxnMarkerTopic(name=t, partition_indexes=ps) for t, ps in parts.items()],
    )]))
    return {(t.name, p.partition_index): p.error_code for t in resp.markers[0].topics for p in t.partitions}


def test_a_retried_batch_gets_its_original_offset_and_is_stored_once(broker: BrokerProcess) -> None:
    topic = unique("dup")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        pid, epoch = init_producer_id(c, None)
        first = producer_batch(pid, epoch, 0)
        assert produce(c, {(topic, 0): first}) == {(topic, 0): (E.NONE, 0)}
        assert produce(c, {(topic, 0): producer_batch(pid, epoch, 2)}) == {(topic, 0): (E.NONE, 2)}
        assert produce(c, {(topic, 0): first}) == {(topic, 0): (E.NONE, 0)}
        part = fetch_partition(c, topic, committed=False)
        assert [h.base_offset for _, h in rb.iter_batches(part.records)] == [0, 2]
        assert part.high_watermark == 4


def test_sequence_gap_is_out_of_order_over_the_wire(broker: BrokerProcess) -> None:
    topic = unique("ooo")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        pid, epoch = init_producer_id(c, None)
        assert produce(c, {(topic, 0): producer_batch(pid, epoch, 0)})[(topic, 0)][0] == E.NONE
        assert produce(c, {(topic, 0): producer_batch(pid, epoch, 5)}) == {
            (topic, 0): (E.OUT_OF_ORDER_SEQUENCE_NUMBER, -1)
        }
        assert produce(c, {(topic, 0): producer_batch(pid, epoch, 2)}) == {(topic, 0): (E.NONE, 2)}


def test_sequences_hold_for_a_batch_with_an_old_create_time(broker: BrokerProcess) -> None:
    # kafkajs 2.2.4's broker produce spec ("request with idempotent producer") writes CreateTime
    # 2017-11-06. Apache Kafka 4.0.0 answers this exchange exactly so: the producer, older than
    # producer.id.expiration.ms by its timestamp, is forgotten only at the periodic check.
    old = 1_509_928_155_660
    topic = unique("oldts")

    def batch(pid: int, epoch: int, seq: int) -> bytes:
        return rb.build_batch([rb.Record(b"k%d" % i, b"v%d" % (seq + i), [], old) for i in range(3)],
                              producer_id=pid, producer_epoch=epoch, base_sequence=seq)

    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        pid, epoch = init_producer_id(c, None)
        assert produce(c, {(topic, 0): batch(pid, epoch, 0)}) == {(topic, 0): (E.NONE, 0)}
        for seq in (1, 5):
            assert produce(c, {(topic, 0): batch(pid, epoch, seq)}) == {
                (topic, 0): (E.OUT_OF_ORDER_SEQUENCE_NUMBER, -1)
            }
        assert produce(c, {(topic, 0): batch(pid, epoch, 0)}) == {(topic, 0): (E.NONE, 0)}
        assert produce(c, {(topic, 0): batch(pid, epoch, 3)}) == {(topic, 0): (E.NONE, 3)}


def test_transactional_batch_needs_the_partition_in_the_transaction(broker: BrokerProcess) -> None:
    topic = unique("verify")
    tid = unique("tid")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        pid, epoch = init_producer_id(c, tid)
        records = producer_batch(pid, epoch, 0, txn=True)
        # No AddPartitionsToTxn: refused, with the code each produce version understands.
        assert produce(c, {(topic, 0): records}, tid=tid, version=9) == {(topic, 0): (E.INVALID_TXN_STATE, -1)}
        assert produce(c, {(topic, 0): records}, tid=tid, version=11) == {
            (topic, 0): (E.TRANSACTION_ABORTABLE, -1)
        }
        # Without a transactional id, or with two producers in one request.
        assert produce(c, {(topic, 0): records})[(topic, 0)][0] == E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        other = unique("other")
        create_topic(c, other)
        two = {(topic, 0): records, (other, 0): producer_batch(pid + 1, 0, 0, txn=True)}
        assert {code for code, _ in produce(c, two, tid=tid).values()} == {E.INVALID_PRODUCER_ID_MAPPING}
        assert fetch_partition(c, topic, committed=False).high_watermark == 0
        # Once added, the batch is accepted and opens the transaction at the partition.
        add_partition(c, tid, pid, epoch, topic)
        assert produce(c, {(topic, 0): records}, tid=tid) == {(topic, 0): (E.NONE, 0)}
        # A non-transactional write by the same producer meanwhile is refused.
        assert produce(c, {(topic, 0): producer_batch(pid, epoch, 2)})[(topic, 0)][0] == E.INVALID_TXN_STATE


def test_write_txn_markers_aborts_a_hanging_transaction(broker: BrokerProcess) -> None:
    topic = unique("hanging")
    tid = unique("tid")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        assert produce(c, {(topic, 0): producer_batch(-1, -1, -1, 1)}) == {(topic, 0): (E.NONE, 0)}
        pid, epoch = init_producer_id(c, tid)
        add_partition(c, tid, pid, epoch, topic)
        assert produce(c, {(topic, 0): producer_batch(pid, epoch, 0, 3, txn=True)}, tid=tid) == {(topic, 0): (E.NONE, 1)}
        held = fetch_partition(c, topic, committed=True)
        assert (held.high_watermark, held.last_stable_offset) == (4, 1)
        assert [h.base_offset for _, h in rb.iter_batches(held.records)] == [0]
        # The admin's abort: an ABORT marker straight to the partition leader.
        assert write_marker(c, pid, epoch - 1, {topic: [0]}) == {(topic, 0): E.INVALID_PRODUCER_EPOCH}
        assert write_marker(c, pid, epoch, {topic: [0]}) == {(topic, 0): E.NONE}
        part = fetch_partition(c, topic, committed=True)
        assert part.last_stable_offset == part.high_watermark == 5
        assert [(a.producer_id, a.first_offset) for a in part.aborted_transactions] == [(pid, 1)]
        assert [h.base_offset for _, h in rb.iter_batches(part.records)] == [0, 1, 4]


def test_write_txn_markers_answers_per_partition(broker: BrokerProcess) -> None:
    topic = unique("markers")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        pid, epoch = init_producer_id(c, None)
        missing = unique("missing")
        got = write_marker(c, pid, epoch, {topic: [0, 7], missing: [0]}, commit=True, version=0)
        assert got == {
            (topic, 0): E.NONE,
            (topic, 7): E.UNKNOWN_TOPIC_OR_PARTITION,
            (missing, 0): E.UNKNOWN_TOPIC_OR_PARTITION,
        }
