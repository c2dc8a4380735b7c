"""InitProducerId, AddPartitionsToTxn, EndTxn and the KIP-664 APIs against a real broker."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages.add_offsets_to_txn_request import AddOffsetsToTxnRequest
from protocol.messages.add_partitions_to_txn_request import (
    AddPartitionsToTxnRequest,
    AddPartitionsToTxnTopic,
    AddPartitionsToTxnTransaction,
)
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.describe_transactions_request import DescribeTransactionsRequest
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.list_transactions_request import ListTransactionsRequest
from protocol.record_batch import ControlType, decode_batches, parse_control_record
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient, create_topic

E = ErrorCode


def _init(c: WireClient, tid: str | None, version: int = 4, **kw: Any) -> Any:
    kw.setdefault("transaction_timeout_ms", 60000)
    return c.call(22, version, InitProducerIdRequest(transactional_id=tid, **kw))


def _add(
    c: WireClient, tid: str, pid: int, epoch: int, topic: str, parts: list[int], version: int = 3
) -> dict:
    resp: Any = c.call(
        24,
        version,
        AddPartitionsToTxnRequest(
            v3_and_below_transactional_id=tid,
            v3_and_below_producer_id=pid,
            v3_and_below_producer_epoch=epoch,
            v3_and_below_topics=[AddPartitionsToTxnTopic(name=topic, partitions=parts)],
        ),
    )
    return {
        (t.name, p.partition_index): p.partition_error_code
        for t in resp.results_by_topic_v3_and_below
        for p in t.results_by_partition
    }


def _end(c: WireClient, tid: str, pid: int, epoch: int, commit: bool, version: int = 3) -> int:
    resp: Any = c.call(
        26,
        version,
        EndTxnRequest(transactional_id=tid, producer_id=pid, producer_epoch=epoch, committed=commit),
    )
    return int(resp.error_code)


def _until_complete(c: WireClient, tid: str, pid: int, epoch: int, commit: bool) -> None:
    # No client backoff needed: the broker holds a retry until the completion in flight ends
    # (TransactionConfig.concurrent_wait_ms), so each attempt is answered once something changed.
    for _ in range(50):
        if _end(c, tid, pid, epoch, commit) == E.NONE:
            return
    raise AssertionError("the transaction never completed")


def test_versions_advertised(fresh_broker: BrokerProcess) -> None:
    with WireClient(fresh_broker.bootstrap) as c:
        resp: Any = c.call(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
        ranges = {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys}
        assert ranges[22] == (0, 6)
        assert ranges[24] == (0, 5)
        assert ranges[25] == (0, 4)
        assert ranges[26] == (0, 5)
        assert ranges[65] == (0, 0)
        assert ranges[66] == (0, 2)
        assert all(
            f.name != "transaction.version" or f.max_version_level < 2 for f in resp.finalized_features
        )


def test_transaction_round_trip_and_restart(fresh_broker: BrokerProcess) -> None:
    with WireClient(fresh_broker.bootstrap) as c:
        create_topic(c, "txn-wire")
        idem = _init(c, None, version=0)
        assert idem.error_code == E.NONE and idem.producer_epoch == 0
        first = _init(c, "app")
        assert first.error_code == E.NONE and first.producer_epoch == 0
        pid = first.producer_id
        assert _add(c, "app", pid, 0, "txn-wire", [0]) == {("txn-wire", 0): E.NONE}
        assert _add(c, "app", pid, 0, "no-such-topic", [0]) == {
            ("no-such-topic", 0): E.UNKNOWN_TOPIC_OR_PARTITION
        }
        resp: Any = c.call(
            25,
            3,
            AddOffsetsToTxnRequest(transactional_id="app", producer_id=pid, producer_epoch=0, group_id="g"),
        )
        assert resp.error_code == E.NONE
        desc: Any = c.call(65, 0, DescribeTransactionsRequest(transactional_ids=["app", "nope"]))
        app, nope = desc.transaction_states
        assert app.transaction_state == "Ongoing" and app.producer_id == pid
        assert {t.topic for t in app.topics} == {"txn-wire", "__consumer_offsets"}
        assert nope.error_code == E.TRANSACTIONAL_ID_NOT_FOUND
        lst: Any = c.call(66, 1, ListTransactionsRequest(state_filters=["Ongoing"]))
        assert [t.transactional_id for t in lst.transaction_states] == ["app"]
        assert _end(c, "app", pid, 0, True) == E.NONE
        _until_complete(c, "app", pid, 0, True)
        assert _end(c, "app", pid, 0, False) == E.INVALID_TXN_STATE
        # The COMMIT marker is in the partition.
        fetch: Any = c.call(
            1,
            4,
            FetchRequest(
                max_wait_ms=0,
                topics=[
                    FetchTopic(
                        topic="txn-wire",
                        partitions=[FetchPartition(partition=0, partition_max_bytes=1 << 20)],
                    )
                ],
            ),
        )
        records = fetch.responses[0].partitions[0].records
        batches = decode_batches(records)
        assert len(batches) == 1 and batches[0].header.is_control and batches[0].header.producer_id == pid
        assert parse_control_record(batches[0].records[0]).control_type == ControlType.COMMIT

    fresh_broker.stop()
    fresh_broker.start()
    with WireClient(fresh_broker.bootstrap) as c:
        again = _init(c, "app")
        assert (again.error_code, again.producer_id, again.producer_epoch) == (E.NONE, pid, 1)
        idem2 = _init(c, None)
        assert idem2.producer_id not in (pid, idem.producer_id)
        # The old epoch is fenced: PRODUCER_FENCED from v2, INVALID_PRODUCER_EPOCH before.
        assert _end(c, "app", pid, 0, True, version=2) == E.PRODUCER_FENCED
        assert _end(c, "app", pid, 0, True, version=1) == E.INVALID_PRODUCER_EPOCH
        assert (
            _init(c, "app", version=3, producer_id=pid, producer_epoch=9).error_code
            == E.INVALID_PRODUCER_EPOCH
        )
        assert _init(c, "app", version=4, producer_id=pid, producer_epoch=9).error_code == E.PRODUCER_FENCED


def test_verify_only_and_fencing_an_open_transaction(fresh_broker: BrokerProcess) -> None:
    with WireClient(fresh_broker.bootstrap) as c:
        create_topic(c, "txn-verify")
        r = _init(c, "v")
        pid, epoch = r.producer_id, r.producer_epoch
        assert _add(c, "v", pid, epoch, "txn-verify", [0]) == {("txn-verify", 0): E.NONE}

        def verify(version: int, partitions: list[int]) -> dict[int, int]:
            resp: Any = c.call(
                24,
                version,
                AddPartitionsToTxnRequest(
                    transactions=[
                        AddPartitionsToTxnTransaction(
                            transactional_id="v",
                            producer_id=pid,
                            producer_epoch=epoch,
                            verify_only=True,
                            topics=[AddPartitionsToTxnTopic(name="txn-verify", partitions=partitions)],
                        )
                    ]
                ),
            )
            (txn,) = resp.results_by_transaction
            return {
                p.partition_index: p.partition_error_code
                for t in txn.topic_results
                for p in t.results_by_partition
            }

        assert verify(5, [0, 1]) == {0: E.NONE, 1: E.TRANSACTION_ABORTABLE}
        assert verify(4, [0, 1]) == {0: E.NONE, 1: E.INVALID_TXN_STATE}
        # A new instance fences the open transaction: it is aborted at epoch+1.
        assert _init(c, "v").error_code == E.CONCURRENT_TRANSACTIONS
        for _ in range(50):
            if (r2 := _init(c, "v")).error_code != E.CONCURRENT_TRANSACTIONS:
                break
        assert (r2.error_code, r2.producer_id, r2.producer_epoch) == (E.NONE, pid, epoch + 2)
        assert _add(c, "v", pid, epoch, "txn-verify", [0]) == {("txn-verify", 0): E.PRODUCER_FENCED}
        assert _init(c, "v", transaction_timeout_ms=0).error_code == E.INVALID_TRANSACTION_TIMEOUT


async def test_aiokafka_transactional_producer_commits_and_aborts(fresh_broker: BrokerProcess) -> None:
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(
        bootstrap_servers=fresh_broker.bootstrap, transactional_id="aio", enable_idempotence=True
    )
    await producer.start()
    try:
        async with producer.transaction():
            await producer.send_and_wait("txn-aio", b"kept")
        with contextlib.suppress(RuntimeError):
            async with producer.transaction():
                await producer.send_and_wait("txn-aio", b"dropped")
                raise RuntimeError("abort")
    finally:
        await producer.stop()
    with WireClient(fresh_broker.bootstrap) as c:
        # The coordinator writes the ABORT marker after answering EndTxn (as Kafka does);
        # it is read once durable.
        deadline = time.monotonic() + 10
        while True:
            fetch: Any = c.call(
                1,
                4,
                FetchRequest(
                    max_wait_ms=0,
                    topics=[
                        FetchTopic(
                            topic="txn-aio", partitions=[FetchPartition(partition=0, partition_max_bytes=1 << 20)]
                        )
                    ],
                ),
            )
            batches = decode_batches(fetch.responses[0].partitions[0].records)
            if len(batches) >= 4 or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        kinds = [
            parse_control_record(b.records[0]).control_type if b.header.is_control else b.records[0].value
            for b in batches
        ]
        # Each transaction's data, then its marker; the producer id is the same throughout.
        assert kinds == [b"kept", ControlType.COMMIT, b"dropped", ControlType.ABORT]
        assert len({b.header.producer_id for b in batches}) == 1
