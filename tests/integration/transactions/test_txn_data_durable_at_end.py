"""A transaction's Produce is answered once written; the fsync round of its PrepareCommit
makes the data durable before EndTxn is answered (TransactionCoordinator.
defers_data_durability). The hole this leaves, acknowledged data of an open transaction lost
with the page cache, is closed at start: after an unclean shutdown the open transactions
that wrote data are aborted and their producers fenced. Pinned over the wire with SIGKILL."""

from __future__ import annotations

import time
from typing import Any

from protocol import record_batch as rb
from protocol.errors import ErrorCode
from protocol.messages.end_txn_request import EndTxnRequest
from tests.broker_process import BrokerProcess
from tests.integration.idempotence.idempotent_produce import produce
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


def _produce(c: WireClient, tid: str, topic: str, records: bytes) -> tuple[int, int]:
    """A transactional Produce (acks=all) to partition 0: its error code and base offset."""
    return produce(c, {(topic, 0): records}, tid=tid)[(topic, 0)]


def _once_stable(c: WireClient, topic: str, end: int) -> Any:
    """Partition 0 under read_committed once its last stable offset reaches `end`."""
    deadline = time.monotonic() + 10
    while (partition := fetch_partition(c, topic, committed=True)).last_stable_offset < end:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return partition


def _log(partition: Any) -> list[str | list[bytes]]:
    """Each batch read: its values, or "commit"/"abort" for a marker."""
    out: list[str | list[bytes]] = []
    for batch in rb.decode_batches(partition.records or b""):
        if batch.header.is_control:
            kind = rb.parse_control_record(batch.records[0]).control_type
            out.append("commit" if kind == rb.ControlType.COMMIT else "abort")
        else:
            out.append([r.value or b"" for r in batch.records])
    return out


def test_an_open_transaction_that_wrote_data_is_aborted_after_sigkill(fresh_txn_broker: BrokerProcess) -> None:
    broker = fresh_txn_broker
    topic, tid = unique("open-at-kill"), unique("open-at-kill-tid")
    with WireClient(broker.bootstrap) as c:
        create_topic(c, topic)
        pid, epoch = init_producer_id(c, tid)
        add_partition(c, tid, pid, epoch, topic)
        assert _produce(c, tid, topic, producer_batch(pid, epoch, 0, txn=True)) == (E.NONE, 0)
        end_txn(c, tid, pid, epoch, commit=True)
        add_partition(c, tid, pid, epoch, topic)
        # Acknowledged, then the broker dies before the transaction ends.
        assert _produce(c, tid, topic, producer_batch(pid, epoch, 2, txn=True)) == (E.NONE, 3)
    broker.kill()
    broker.start()
    with WireClient(broker.bootstrap) as c:
        # Aborted at start: a marker closes the open data, which read_committed drops.
        committed = _once_stable(c, topic, 6)
        assert committed.high_watermark == 6
        assert _log(committed) == [[b"v0", b"v1"], "commit", [b"v2", b"v3"], "abort"]
        assert [(a.producer_id, a.first_offset) for a in committed.aborted_transactions or []] == [(pid, 3)]
        # The producer that left it open is fenced: the abort bumped its epoch.
        resp: Any = c.call(26, 3, EndTxnRequest(transactional_id=tid, producer_id=pid, producer_epoch=epoch,
                                                committed=True))
        assert resp.error_code == E.PRODUCER_FENCED
        # A new instance goes on from there.
        pid2, epoch2 = init_producer_id(c, tid)
        assert (pid2, epoch2) == (pid, epoch + 2)
        add_partition(c, tid, pid2, epoch2, topic)
        assert _produce(c, tid, topic, producer_batch(pid2, epoch2, 0, txn=True)) == (E.NONE, 6)
        end_txn(c, tid, pid2, epoch2, commit=True)
        committed = _once_stable(c, topic, 9)
        assert _log(committed)[4:] == [[b"v0", b"v1"], "commit"]
        assert [a.first_offset for a in committed.aborted_transactions or []] == [3]
