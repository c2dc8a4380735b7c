"""KIP-939 two-phase commit over the wire: InitProducerId v6 with Enable2Pc, a prepared
transaction that no timeout aborts and that survives a producer restart (and a broker
restart), taken over with KeepPreparedTxn and committed by the new instance."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages.describe_transactions_request import DescribeTransactionsRequest
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.record_batch import ControlType, decode_batches, parse_control_record
from tests.broker_process import BrokerProcess, own_broker
from tests.integration.idempotence.idempotent_produce import produce
from tests.kafka_wire import WireClient, create_topic, fetch_partition, producer_batch

E = ErrorCode
TWO_PC = {
    "transaction.two.phase.commit.enable": "true",
    "transaction.version": "2",
}


@pytest.fixture
def two_pc_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    yield from own_broker(tmp_path / "data", TWO_PC)


def _init(c: WireClient, tid: str, *, enable_2pc: bool, keep: bool = False, timeout_ms: int = 1000) -> Any:
    for _ in range(100):
        resp: Any = c.call(22, 6, InitProducerIdRequest(
            transactional_id=tid, transaction_timeout_ms=timeout_ms, enable2_pc=enable_2pc, keep_prepared_txn=keep,
        ))
        if resp.error_code not in (E.CONCURRENT_TRANSACTIONS, E.COORDINATOR_LOAD_IN_PROGRESS):
            return resp
        time.sleep(0.05)
    raise AssertionError("InitProducerId stayed busy")


def _end(c: WireClient, tid: str, pid: int, epoch: int, commit: bool) -> Any:
    return c.call(26, 5, EndTxnRequest(transactional_id=tid, producer_id=pid, producer_epoch=epoch, committed=commit))


def _state(c: WireClient, tid: str) -> Any:
    desc: Any = c.call(65, 0, DescribeTransactionsRequest(transactional_ids=[tid]))
    return desc.transaction_states[0]


def _committed_values(c: WireClient, topic: str) -> list[bytes | None]:
    part = fetch_partition(c, topic, committed=True)
    return [r.value for b in decode_batches(part.records) if not b.header.is_control for r in b.records]


def test_prepared_transaction_survives_restarts_and_is_committed_by_the_new_instance(
    two_pc_broker: BrokerProcess,
) -> None:
    with WireClient(two_pc_broker.bootstrap) as c:
        create_topic(c, "twopc")
        first = _init(c, "ext-1", enable_2pc=True)
        assert first.error_code == E.NONE
        assert (first.ongoing_txn_producer_id, first.ongoing_txn_producer_epoch) == (-1, -1)
        pid, epoch = first.producer_id, first.producer_epoch
        # Prepare: the records are written and flushed, the decision is the external coordinator's.
        out = produce(c, {("twopc", 0): producer_batch(pid, epoch, 0, txn=True)}, tid="ext-1", version=12)
        assert out[("twopc", 0)][0] == E.NONE
        # The timeout asked for is replaced: only the external coordinator ends it (the
        # expiry itself is covered on the injected clock in test_txn_coordinator.py).
        state = _state(c, "ext-1")
        assert (state.transaction_state, state.producer_epoch) == ("Ongoing", epoch)
        assert state.transaction_timeout_ms == 2**31 - 1
    two_pc_broker.kill()
    two_pc_broker.start()
    with WireClient(two_pc_broker.bootstrap) as c:
        # The producer restarts and keeps the prepared transaction instead of aborting it.
        second = _init(c, "ext-1", enable_2pc=True, keep=True)
        assert second.error_code == E.NONE
        assert (second.producer_id, second.producer_epoch) == (pid, epoch + 1)
        assert (second.ongoing_txn_producer_id, second.ongoing_txn_producer_epoch) == (pid, epoch)
        assert _committed_values(c, "twopc") == []
        # The old instance is fenced; the new one commits what the old one prepared.
        assert _end(c, "ext-1", pid, epoch, True).error_code == E.PRODUCER_FENCED
        committed = _end(c, "ext-1", pid, epoch + 1, True)
        assert (committed.error_code, committed.producer_epoch) == (E.NONE, epoch + 2)
        for _ in range(200):
            if _committed_values(c, "twopc"):
                break
            time.sleep(0.02)
        assert _committed_values(c, "twopc") == [b"v0", b"v1"]


def test_keep_prepared_then_abort_and_the_setting_gate(two_pc_broker: BrokerProcess, tmp_path: Path) -> None:
    with WireClient(two_pc_broker.bootstrap) as c:
        create_topic(c, "twopc-a")
        first = _init(c, "ext-2", enable_2pc=True)
        pid, epoch = first.producer_id, first.producer_epoch
        assert produce(c, {("twopc-a", 0): producer_batch(pid, epoch, 0, txn=True)}, tid="ext-2", version=12)[
            ("twopc-a", 0)
        ][0] == E.NONE
        taken = _init(c, "ext-2", enable_2pc=True, keep=True)
        assert (taken.producer_epoch, taken.ongoing_txn_producer_epoch) == (epoch + 1, epoch)
        assert _end(c, "ext-2", pid, epoch + 1, False).error_code == E.NONE
        # Without KeepPreparedTxn a restart aborts as ever, and finds nothing open now.
        again = _init(c, "ext-2", enable_2pc=True)
        assert (again.error_code, again.ongoing_txn_producer_id) == (E.NONE, -1)
        part = fetch_partition(c, "twopc-a", committed=True)
        assert [a.producer_id for a in part.aborted_transactions] == [pid]
        markers = [parse_control_record(b.records[0]).control_type for b in decode_batches(part.records)
                   if b.header.is_control]
        assert markers == [ControlType.ABORT]
        # KeepPreparedTxn needs Enable2Pc.
        assert _init(c, "ext-2", enable_2pc=False, keep=True).error_code == E.INVALID_REQUEST
    with BrokerProcess(tmp_path / "off") as off, WireClient(off.bootstrap) as c:
        assert _init(c, "ext-3", enable_2pc=True).error_code == E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
