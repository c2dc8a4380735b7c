"""Clients that disconnect in the middle of a transactional request: the broker cancels the
request's handler, and the transactional id must not be left busy. After many such
disconnects a new producer with the same transactional.id initializes and commits."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages.add_partitions_to_txn_request import (
    AddPartitionsToTxnRequest,
    AddPartitionsToTxnTopic,
)
from protocol.messages.describe_transactions_request import DescribeTransactionsRequest
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from tests.broker_process import BrokerProcess
from tests.integration.transactions.txn_clients import create_topics, end_offsets, read, values
from tests.kafka_wire import WireClient

E = ErrorCode
ROUNDS = 60
# Each attempt is held by the broker for up to TransactionConfig.concurrent_wait_ms while
# the previous transaction completes, so a few attempts cover any completion.
ATTEMPTS = 40


def _init(c: WireClient, tid: str) -> tuple[int, int]:
    for _ in range(ATTEMPTS):
        resp: Any = c.call(22, 4, InitProducerIdRequest(transactional_id=tid, transaction_timeout_ms=60_000))
        if resp.error_code != E.CONCURRENT_TRANSACTIONS:
            assert resp.error_code == E.NONE, resp
            return resp.producer_id, resp.producer_epoch
    raise AssertionError("InitProducerId never stopped answering CONCURRENT_TRANSACTIONS")


def _add_request(tid: str, pid: int, epoch: int, topic: str, partition: int) -> AddPartitionsToTxnRequest:
    return AddPartitionsToTxnRequest(
        v3_and_below_transactional_id=tid,
        v3_and_below_producer_id=pid,
        v3_and_below_producer_epoch=epoch,
        v3_and_below_topics=[AddPartitionsToTxnTopic(name=topic, partitions=[partition])],
    )


def _add(c: WireClient, tid: str, pid: int, epoch: int, topic: str, partition: int) -> None:
    for _ in range(ATTEMPTS):
        resp: Any = c.call(24, 3, _add_request(tid, pid, epoch, topic, partition))
        (error,) = {
            p.partition_error_code for t in resp.results_by_topic_v3_and_below for p in t.results_by_partition
        }
        if error != E.CONCURRENT_TRANSACTIONS:
            assert error == E.NONE, error
            return
    raise AssertionError("AddPartitionsToTxn never stopped answering CONCURRENT_TRANSACTIONS")


def _end_request(tid: str, pid: int, epoch: int) -> EndTxnRequest:
    return EndTxnRequest(transactional_id=tid, producer_id=pid, producer_epoch=epoch, committed=True)


def test_disconnects_mid_request_leave_the_transactional_id_usable(
    txn_broker: BrokerProcess, name: str
) -> None:
    bs = txn_broker.bootstrap
    topic = f"{name}-out"
    tid = f"{name}-tid"
    create_topics(bs, {topic: 2})
    last_epoch = -1
    for i in range(ROUNDS):
        with WireClient(bs) as c:
            pid, epoch = _init(c, tid)
            assert epoch > last_epoch  # every round's producer is a new instance
            last_epoch = epoch
            _add(c, tid, pid, epoch, topic, 0)
            kind = i % 3
            if kind == 0:
                # EndTxn, and gone before the answer: PrepareCommit may be mid-append.
                c.send(26, 3, _end_request(tid, pid, epoch))
            elif kind == 1:
                # AddPartitionsToTxn, and gone: the Ongoing record may be mid-append.
                c.send(24, 3, _add_request(tid, pid, epoch, topic, 1))
            else:
                # EndTxn answered, then the next transaction's AddPartitionsToTxn, which writes
                # the held-back CompleteCommit with its Ongoing record, and gone.
                end: Any = c.call(26, 3, _end_request(tid, pid, epoch))
                assert end.error_code == E.NONE
                c.send(24, 3, _add_request(tid, pid, epoch, topic, 1))
        # Leaving the with-block closes the socket at once.

    async def produce() -> None:
        from aiokafka import AIOKafkaProducer

        producer = AIOKafkaProducer(bootstrap_servers=bs, transactional_id=tid, enable_idempotence=True)
        await producer.start()
        try:
            async with producer.transaction():
                await producer.send_and_wait(topic, b"final", partition=0)
        finally:
            await producer.stop()

    asyncio.run(produce())

    tps = [(topic, 0), (topic, 1)]
    # The last commit completes (its markers follow the answer) and nothing is left open on
    # the partitions: the last stable offset reaches the end.
    deadline = time.monotonic() + 15
    with WireClient(bs) as c:
        while (state := _describe(c, tid)).transaction_state != "CompleteCommit":
            assert state.transaction_state == "PrepareCommit", state
            assert time.monotonic() < deadline, "the last transaction never completed"
            time.sleep(0.05)
    assert state.producer_epoch > last_epoch
    hwm = end_offsets(bs, tps, committed=False)
    assert end_offsets(bs, tps, committed=True) == hwm
    assert values(read("aiokafka", bs, tps, committed=True, until=hwm)) == [b"final"]


def _describe(c: WireClient, tid: str) -> Any:
    resp: Any = c.call(65, 0, DescribeTransactionsRequest(transactional_ids=[tid]))
    (state,) = resp.transaction_states
    assert state.error_code == E.NONE
    return state
