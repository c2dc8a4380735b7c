"""AddPartitionsToTxn is answered before its record is durable; the transactional Produce
that follows waits for it (TransactionCoordinator.verify_when_settled). Pinned on the wire
with the requests pipelined, so the Produce reaches the broker while the add is in flight."""

from __future__ import annotations

import time
from typing import Any, cast

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.add_partitions_to_txn_request import AddPartitionsToTxnRequest, AddPartitionsToTxnTopic
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.broker_process import BrokerProcess
from tests.kafka_wire import (
    WireClient,
    create_topic,
    end_txn,
    fetch_partition,
    init_producer_id,
    producer_batch,
)
from tests.names import unique

E = ErrorCode
ADD, PRODUCE, END = 24, 0, 26


def _add_request(tid: str, pid: int, epoch: int, topic: str) -> AddPartitionsToTxnRequest:
    return AddPartitionsToTxnRequest(
        v3_and_below_transactional_id=tid, v3_and_below_producer_id=pid, v3_and_below_producer_epoch=epoch,
        v3_and_below_topics=[AddPartitionsToTxnTopic(name=topic, partitions=[0])],
    )


def _produce_request(tid: str, topic: str, records: bytes) -> ProduceRequest:
    return ProduceRequest(
        transactional_id=tid, acks=-1, timeout_ms=10_000,
        topic_data=[TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=records)])],
    )


def _add_then_produce(
    c: WireClient, tid: str, pid: int, epoch: int, added: str, produced: str, seq: int, produce_version: int = 9
) -> tuple[int, tuple[int, int]]:
    """AddPartitionsToTxn for `added` and, without waiting for its answer, a Produce of two
    records to `produced`: the add's error code, and the Produce's (error code, base offset)."""
    add_id = c.send(ADD, 3, _add_request(tid, pid, epoch, added))
    batch = producer_batch(pid, epoch, seq, txn=True)
    produce_id = c.send(PRODUCE, produce_version, _produce_request(tid, produced, batch))
    got, add_resp = c.recv(ADD, 3)
    assert got == add_id
    got, produce_resp = c.recv(PRODUCE, produce_version)
    assert got == produce_id
    add_code = cast(Any, add_resp).results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code
    part = cast(Any, produce_resp).responses[0].partition_responses[0]
    # The Produce waits for the add's record up to the coordinator's concurrent_wait_ms
    # (500 ms), then answers CONCURRENT_TRANSACTIONS as NOT_ENOUGH_REPLICAS (Kafka's
    # AddPartitionsToTxnManager), which a producer retries. On a loaded machine the add (behind
    # the previous transaction's markers, each an fsync round) can take longer: retried, as a
    # producer would, until the add is durable and the batch's fate decided.
    deadline = time.monotonic() + 30
    while (part.error_code, part.base_offset) == (E.NOT_ENOUGH_REPLICAS, -1):
        assert time.monotonic() < deadline, "the add never settled"
        retried: Any = c.call(PRODUCE, produce_version, _produce_request(tid, produced, batch))
        part = retried.responses[0].partition_responses[0]
    return add_code, (part.error_code, part.base_offset)


def _committed_once_stable(c: WireClient, topic: str, end: int) -> Any:
    """Partition 0 under read_committed once the markers (written after EndTxn's answer)
    bring its last stable offset to `end`."""
    deadline = time.monotonic() + 10
    while (partition := fetch_partition(c, topic, committed=True)).last_stable_offset < end:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return partition


def _values(partition: Any) -> list[bytes]:
    return [r.value for b in rb.decode_batches(partition.records or b"") if not b.header.is_control for r in b.records]


def test_pipelined_add_and_produce_commit_and_read_back(txn_broker: BrokerProcess) -> None:
    topic, tid = unique("early-add"), unique("early-add-tid")
    with WireClient(txn_broker.bootstrap) as c:
        create_topic(c, topic)
        pid, epoch = init_producer_id(c, tid)
        assert _add_then_produce(c, tid, pid, epoch, topic, topic, 0) == (E.NONE, (E.NONE, 0))
        end_txn(c, tid, pid, epoch, commit=True)
        # The next transaction's add merges with the previous one's completion.
        assert _add_then_produce(c, tid, pid, epoch, topic, topic, 2) == (E.NONE, (E.NONE, 3))
        end_txn(c, tid, pid, epoch, commit=True)
        committed = _committed_once_stable(c, topic, 6)
        assert committed.error_code == E.NONE
        assert committed.high_watermark == committed.last_stable_offset == 6
        assert _values(committed) == [b"v0", b"v1", b"v2", b"v3"]


def test_pipelined_produce_to_a_partition_not_added_is_refused(txn_broker: BrokerProcess) -> None:
    added, other, tid = unique("early-added"), unique("early-other"), unique("early-other-tid")
    with WireClient(txn_broker.bootstrap) as c:
        create_topic(c, added)
        create_topic(c, other)
        pid, epoch = init_producer_id(c, tid)
        # Kafka's verification: TRANSACTION_ABORTABLE from Produce v11, INVALID_TXN_STATE before.
        assert _add_then_produce(c, tid, pid, epoch, added, other, 0) == (E.NONE, (E.INVALID_TXN_STATE, -1))
        assert _add_then_produce(c, tid, pid, epoch, added, other, 0, produce_version=11) == (
            E.NONE, (E.TRANSACTION_ABORTABLE, -1)
        )
        end_txn(c, tid, pid, epoch, commit=False)
        assert _values(fetch_partition(c, other, committed=False)) == []
        assert fetch_partition(c, other, committed=False).high_watermark == 0


def test_abort_pipelined_behind_an_add_waiting_for_the_previous_commit(txn_broker: BrokerProcess) -> None:
    """librdkafka's abort_transaction() sends EndTxn(abort) right behind an AddPartitionsToTxn
    it has no answer to yet. The add arrives while the previous commit's markers are being
    written and waits for them; the abort must wait behind it (Kafka handles a connection's
    requests one at a time), not overtake it and find PrepareCommit: INVALID_TXN_STATE,
    fatal for the producer. All three requests go out at once, so the add and the abort
    arrive before the commit's markers are written."""
    topic, tid = unique("pipelined-abort"), unique("pipelined-abort-tid")
    with WireClient(txn_broker.bootstrap) as c:
        create_topic(c, topic)
        pid, epoch = init_producer_id(c, tid)
        assert _add_then_produce(c, tid, pid, epoch, topic, topic, 0) == (E.NONE, (E.NONE, 0))
        ends = [
            EndTxnRequest(transactional_id=tid, producer_id=pid, producer_epoch=epoch, committed=commit)
            for commit in (True, False)
        ]
        sent = [(END, c.send(END, 3, ends[0])), (ADD, c.send(ADD, 3, _add_request(tid, pid, epoch, topic))),
                (END, c.send(END, 3, ends[1]))]
        codes = []
        for api, cid in sent:
            got, resp = c.recv(api, 3)
            assert got == cid
            r = cast(Any, resp)
            codes.append(r.error_code if api == END else r.results_by_topic_v3_and_below[0].results_by_partition[0]
                         .partition_error_code)
        assert codes == [E.NONE, E.NONE, E.NONE]
        # The two records committed, then the second transaction's abort marker (it wrote nothing).
        partition = _committed_once_stable(c, topic, 4)
        assert _values(partition) == [b"v0", b"v1"]
        markers = [
            rb.ControlType(int.from_bytes(r.key[2:4], "big"))
            for b in rb.decode_batches(fetch_partition(c, topic, committed=False).records or b"")
            if b.header.is_control
            for r in b.records
        ]
        assert markers == [rb.ControlType.COMMIT, rb.ControlType.ABORT]
