"""Transaction version 2 (KIP-890 part 2) over the wire: the feature as ApiVersions reports
it and UpdateFeatures changes it, partitions added by Produce v12+ and TxnOffsetCommit v5,
the epoch bumped by every EndTxn v5, and the late Produce and EndTxn of an earlier
transaction refused (KAFKA-17754)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.consumer_group_heartbeat_request import ConsumerGroupHeartbeatRequest
from protocol.messages.describe_transactions_request import DescribeTransactionsRequest
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from protocol.messages.update_features_request import FeatureUpdateKey, UpdateFeaturesRequest
from protocol.record_batch import ControlType, decode_batches, parse_control_record
from tests.broker_process import BrokerProcess, own_broker
from tests.integration.idempotence.idempotent_produce import produce
from tests.integration.transactions.txn_offsets import _commit, _fetch
from tests.kafka_wire import (
    WireClient,
    add_partition,
    create_topic,
    end_txn,
    fetch_partition,
    init_producer_id,
    producer_batch,
)

E = ErrorCode


@pytest.fixture
def tv2_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    yield from own_broker(tmp_path / "data", {"transaction.version": "2"})


def _end(c: WireClient, tid: str, pid: int, epoch: int, commit: bool) -> Any:
    """EndTxn v5, retried while the previous transaction's markers are in flight."""
    for _ in range(50):
        resp: Any = c.call(26, 5, EndTxnRequest(transactional_id=tid, producer_id=pid, producer_epoch=epoch,
                                                committed=commit))
        if resp.error_code != E.CONCURRENT_TRANSACTIONS:
            return resp
    raise AssertionError("EndTxn stayed busy")


def _settled(c: WireClient, tid: str) -> str:
    """The transaction's state once its markers are written (Kafka fences an EndTxn at the
    new epoch while the previous end is still PrepareX)."""
    for _ in range(200):
        desc: Any = c.call(65, 0, DescribeTransactionsRequest(transactional_ids=[tid]))
        state = str(desc.transaction_states[0].transaction_state)
        if not state.startswith("Prepare"):
            return state
        time.sleep(0.01)
    raise AssertionError("the transaction never completed")


def _produce(c: WireClient, topic: str, tid: str, pid: int, epoch: int, seq: int) -> int:
    out = produce(c, {(topic, 0): producer_batch(pid, epoch, seq, txn=True)}, tid=tid, version=12)
    return out[(topic, 0)][0]


def test_feature_finalized_by_setting(tv2_broker: BrokerProcess) -> None:
    with WireClient(tv2_broker.bootstrap) as c:
        resp: Any = c.call(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
    supported = {f.name: (f.min_version, f.max_version) for f in resp.supported_features}
    finalized = {f.name: f.max_version_level for f in resp.finalized_features}
    assert supported["transaction.version"] == (0, 2)
    assert finalized["transaction.version"] == 2
    assert resp.finalized_features_epoch >= 0
    # KRaft's features, as a new Kafka 4.0 cluster formatted --standalone reports them.
    assert (supported["metadata.version"], supported["kraft.version"]) == ((7, 25), (0, 1))
    assert (finalized["metadata.version"], finalized["kraft.version"]) == (25, 1)
    assert {f.name: f.min_version_level for f in resp.finalized_features} == finalized
    assert resp.zk_migration_ready is False


def test_implicit_add_epoch_bump_and_late_requests_refused(tv2_broker: BrokerProcess) -> None:
    with WireClient(tv2_broker.bootstrap) as c:
        create_topic(c, "tv2")
        init: Any = c.call(22, 5, InitProducerIdRequest(transactional_id="tv2-app", transaction_timeout_ms=60_000))
        assert init.error_code == E.NONE
        pid, epoch = init.producer_id, init.producer_epoch

        # Transaction 1: no AddPartitionsToTxn, the Produce adds the partition itself.
        assert _produce(c, "tv2", "tv2-app", pid, epoch, 0) == E.NONE
        ended = _end(c, "tv2-app", pid, epoch, True)
        assert (ended.error_code, ended.producer_id, ended.producer_epoch) == (E.NONE, pid, epoch + 1)
        # A retry of that EndTxn (its response lost) is answered with the same bumped epoch.
        retried = _end(c, "tv2-app", pid, epoch, True)
        assert (retried.error_code, retried.producer_id, retried.producer_epoch) == (E.NONE, pid, epoch + 1)

        # Transaction 2 at the bumped epoch, sequences from 0 again.
        assert _produce(c, "tv2", "tv2-app", pid, epoch + 1, 0) == E.NONE
        # Replays of transaction 1's requests arriving late: both are refused.
        assert _produce(c, "tv2", "tv2-app", pid, epoch, 2) == E.INVALID_PRODUCER_EPOCH
        late_end = _end(c, "tv2-app", pid, epoch, True)
        assert late_end.error_code == E.PRODUCER_FENCED
        aborted = _end(c, "tv2-app", pid, epoch + 1, False)
        assert (aborted.error_code, aborted.producer_epoch) == (E.NONE, epoch + 2)

        # An abort of a transaction that added nothing still bumps the epoch.
        assert _settled(c, "tv2-app") == "CompleteAbort"
        idle = _end(c, "tv2-app", pid, epoch + 2, False)
        assert (idle.error_code, idle.producer_epoch) == (E.NONE, epoch + 3)
        # A commit with nothing added is not a transaction to end.
        assert _settled(c, "tv2-app") == "CompleteAbort"
        assert _end(c, "tv2-app", pid, epoch + 3, True).error_code == E.INVALID_TXN_STATE

        part = fetch_partition(c, "tv2", committed=True)
        batches = decode_batches(part.records)
        data = [b.header for b in batches if not b.header.is_control]
        markers = [
            (b.header.producer_epoch, parse_control_record(b.records[0]).control_type)
            for b in batches
            if b.header.is_control
        ]
        # Transaction 1 committed and transaction 2 aborted, each marker at its bumped epoch;
        # the late Produce never reached the log.
        assert [(b.producer_epoch, b.base_sequence) for b in data] == [(epoch, 0), (epoch + 1, 0)]
        assert markers == [(epoch + 1, ControlType.COMMIT), (epoch + 2, ControlType.ABORT)]
        assert [a.producer_id for a in part.aborted_transactions] == [pid]


def test_transaction_version_1_clients_unchanged_while_finalized(tv2_broker: BrokerProcess) -> None:
    """EndTxn v4 and below keep the epoch: transaction version 1 as before."""
    with WireClient(tv2_broker.bootstrap) as c:
        create_topic(c, "tv1")
        pid, epoch = init_producer_id(c, "tv1-app")
        for seq in (0, 2):
            add_partition(c, "tv1-app", pid, epoch, "tv1")
            out = produce(c, {("tv1", 0): producer_batch(pid, epoch, seq, txn=True)}, tid="tv1-app", version=9)
            assert out[("tv1", 0)][0] == E.NONE
            end_txn(c, "tv1-app", pid, epoch, True)
        # The markers follow EndTxn's answer.
        deadline = time.monotonic() + 10
        while (part := fetch_partition(c, "tv1", committed=True)).last_stable_offset < 6:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        epochs = [b.header.producer_epoch for b in decode_batches(part.records)]
        assert epochs == [epoch] * 4


def test_txn_offset_commit_v5_adds_the_offsets_partition(tv2_broker: BrokerProcess) -> None:
    tp = ("tv2-in", 0)
    with WireClient(tv2_broker.bootstrap) as c:
        create_topic(c, "tv2-in")
        init: Any = c.call(22, 5, InitProducerIdRequest(transactional_id="tv2-eos", transaction_timeout_ms=60_000))
        pid, epoch = init.producer_id, init.producer_epoch
        # v4 still needs AddOffsetsToTxn; v5 adds the group's partition itself.
        assert _commit(c, "tv2-eos", pid, epoch, "tv2-g", {tp: 7}, version=4) == {tp: E.TRANSACTION_ABORTABLE}
        assert _commit(c, "tv2-eos", pid, epoch, "tv2-g", {tp: 7}, version=5) == {tp: E.NONE}
        assert _fetch(c, "tv2-g", [tp], stable=True) == {tp: (-1, E.UNSTABLE_OFFSET_COMMIT)}
        ended = _end(c, "tv2-eos", pid, epoch, True)
        assert (ended.error_code, ended.producer_epoch) == (E.NONE, epoch + 1)
        assert _settled(c, "tv2-eos") == "CompleteCommit"
        assert _fetch(c, "tv2-g", [tp], stable=True) == {tp: (7, E.NONE)}
        # A late commit of offsets under the ended transaction's epoch is fenced.
        assert _commit(c, "tv2-eos", pid, epoch, "tv2-g", {tp: 99}, version=5) == {tp: E.INVALID_PRODUCER_EPOCH}
        assert _fetch(c, "tv2-g", [tp], stable=True) == {tp: (7, E.NONE)}


# A new broker finalizes share.version 1 (as Kafka 4.2 formats a new cluster), group.version 1
# and metadata.version 25 (4.0-IV3, as Kafka 4.0 does), and reports kraft.version 1.
FRESH = {"share.version": 1, "group.version": 1, "metadata.version": 25, "kraft.version": 1}
# Kafka 4.0's QuorumController puts it before the failed update's message.
FAILED = "The update failed for all features since the following feature had an error: "


def _finalized(c: WireClient) -> tuple[dict[str, int], int]:
    resp: Any = c.call(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
    return {f.name: f.max_version_level for f in resp.finalized_features}, resp.finalized_features_epoch


def _update(c: WireClient, version: int, levels: dict[str, int], upgrade_type: int = 1, **kw: Any) -> Any:
    return c.call(57, version, UpdateFeaturesRequest(
        feature_updates=[FeatureUpdateKey(feature=n, max_version_level=lv, upgrade_type=upgrade_type)
                         for n, lv in levels.items()], **kw,
    ))


def test_update_features_finalizes_transaction_version_across_restart(fresh_broker: BrokerProcess) -> None:
    with WireClient(fresh_broker.bootstrap) as c:
        assert _finalized(c) == (FRESH, 0)
        checked = _update(c, 1, {"transaction.version": 2}, validate_only=True)
        # v0-v1 list each feature of a success, the message as Kafka fills it.
        assert [(r.feature, r.error_code, r.error_message) for r in checked.results] == [
            ("transaction.version", E.NONE, "NONE")]
        assert _finalized(c) == (FRESH, 0)
        # One bad update fails the whole request, with Kafka 4.0's top-level error and no
        # per-feature results.
        mixed = _update(c, 1, {"transaction.version": 2, "no.such.feature": 1})
        assert (mixed.error_code, mixed.error_message, mixed.results) == (
            E.INVALID_UPDATE_VERSION,
            FAILED + "Invalid update version 1 for feature no.such.feature. Local controller 1 does not support "
            "this feature.",
            [],
        )
        over = _update(c, 2, {"transaction.version": 3})
        assert (over.error_code, over.error_message) == (
            E.INVALID_UPDATE_VERSION,
            FAILED + "Invalid update version 3 for feature transaction.version. Local controller 1 only supports "
            "versions 0-2",
        )
        assert _finalized(c) == (FRESH, 0)
        done = _update(c, 2, {"transaction.version": 2})
        assert (done.error_code, done.results) == (E.NONE, [])
        assert _finalized(c) == ({**FRESH, "transaction.version": 2}, 1)
        # A downgrade needs a downgrade type.
        assert _update(c, 2, {"transaction.version": 1}).error_code == E.INVALID_UPDATE_VERSION
        # metadata.version, as Kafka 4.0's FeatureControlManager: not below 4.0-IV1 (23), the
        # last level that changed the metadata records, safe or unsafe; down to 24 it may.
        for upgrade_type, reason in ((2, "Refusing to perform the requested downgrade because it might delete "
                                         "metadata information."),
                                     (3, "Unsafe metadata downgrade is not supported in this version.")):
            deep = _update(c, 2, {"metadata.version": 22}, upgrade_type=upgrade_type)
            assert (deep.error_code, deep.error_message) == (
                E.INVALID_UPDATE_VERSION, FAILED + f"Invalid metadata.version 22. {reason}")
        assert _update(c, 2, {"metadata.version": 26}).error_message == (
            FAILED + "Invalid update version 26 for feature metadata.version. Local controller 1 only supports "
            "versions 7-25")
        assert _update(c, 2, {"metadata.version": 24}, upgrade_type=2).error_code == E.NONE
        # kraft.version is taken as Kafka's controller takes it (as if at 0) and stays 1.
        assert _update(c, 2, {"kraft.version": 0}, upgrade_type=2).error_code == E.NONE
        assert _finalized(c) == ({**FRESH, "transaction.version": 2, "metadata.version": 24}, 3)
    fresh_broker.kill()
    fresh_broker.start()
    with WireClient(fresh_broker.bootstrap) as c:
        assert _finalized(c) == ({**FRESH, "transaction.version": 2, "metadata.version": 24}, 3)
        assert _update(c, 2, {"metadata.version": 25}).error_code == E.NONE
        assert _update(c, 2, {"transaction.version": 0}, upgrade_type=2).error_code == E.NONE
        assert _finalized(c) == (FRESH, 5)
        # A "downgrade" to a higher level is refused, as Kafka's FeatureControlManager does.
        refused = _update(c, 2, {"transaction.version": 1}, upgrade_type=2)
        assert (refused.error_code, refused.error_message) == (
            E.INVALID_UPDATE_VERSION,
            FAILED + "Invalid update version 1 for feature transaction.version. Can't downgrade to a newer version.",
        )
        assert _finalized(c) == (FRESH, 5)
        # group.version 0 turns the consumer group protocol off, as Kafka's KafkaApis does.
        assert _update(c, 2, {"group.version": 0}, upgrade_type=2).error_code == E.NONE
        assert _finalized(c) == ({k: v for k, v in FRESH.items() if k != "group.version"}, 6)
        assert _heartbeat(c).error_code == E.UNSUPPORTED_VERSION
        assert _update(c, 2, {"group.version": 1}).error_code == E.NONE
        assert _finalized(c) == (FRESH, 7)
        assert _heartbeat(c).error_code == E.NONE


def _heartbeat(c: WireClient) -> Any:
    """A new member's first ConsumerGroupHeartbeat (v1: the client names itself)."""
    return c.call(68, 1, ConsumerGroupHeartbeatRequest(
        group_id="tv2-gv", member_id=str(uuid.uuid4()), member_epoch=0, rebalance_timeout_ms=5000,
        subscribed_topic_names=["tv2-gv"], topic_partitions=[]))
