"""Transactions whose partitions and coordinator sit on different brokers: the coordinator
sends WriteTxnMarkers to each partition's leader (broker/txn_marker_channel.py) and each
leader verifies a transactional batch with the coordinator (broker/txn_verifier.py, KIP-890).
A read_committed consumer sees exactly the committed records; a coordinator killed with
SIGKILL between PrepareCommit and its markers is replaced by the partition's new leader,
which completes the transaction."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from coordinator.partitioning import partition_for
from odradek.testing import OdradekCluster
from protocol.errors import ErrorCode
from protocol.messages.describe_transactions_request import DescribeTransactionsRequest
from protocol.messages.end_txn_request import EndTxnRequest
from protocol.messages.find_coordinator_request import FindCoordinatorRequest
from protocol.messages.init_producer_id_request import InitProducerIdRequest
from tests.integration.cluster.conftest import HEARTBEAT_INTERVAL_MS, SESSION_TIMEOUT_MS
from tests.integration.cluster.test_failover import consume_all, create_topic, leaders, wait_for_leaders
from tests.integration.idempotence.idempotent_produce import produce
from tests.integration.transactions.txn_clients import TxnProducer
from tests.kafka_wire import WireClient, producer_batch
from tests.names import unique
from tests.polling import wait_until

TXN_STATE_PARTITIONS = 50  # transaction.state.log.num.partitions, the default
OFFSETS_PARTITIONS = 50  # offsets.topic.num.partitions, the default
ALL = {1, 2, 3}


@pytest.fixture
def txn_cluster(tmp_path: Path, new_postgres_url: Callable[[], str]) -> Iterator[OdradekCluster]:
    nodes = OdradekCluster(
        new_postgres_url(),
        tmp_path,
        overrides={
            "broker.session.timeout.ms": str(SESSION_TIMEOUT_MS),
            "broker.heartbeat.interval.ms": str(HEARTBEAT_INTERVAL_MS),
            "num.partitions": "3",
            # Transaction version 2 finalized: Produce v12+ and EndTxn v5 clients use it,
            # the others (librdkafka) keep version 1.
            "transaction.version": "2",
            # KIP-939: only producers asking for it (InitProducerId v6 Enable2Pc) use it.
            "transaction.two.phase.commit.enable": "true",
        },
    )
    with nodes:
        yield nodes


def txn_producer(bootstrap: str, transactional_id: str) -> Producer:
    return Producer({
        "bootstrap.servers": bootstrap,
        "transactional.id": transactional_id,
        "linger.ms": 5,
        "message.timeout.ms": 60_000,
        "transaction.timeout.ms": 60_000,
        "topic.metadata.refresh.interval.ms": 1000,
    })


def leader_of_key(admin: AdminClient, topic: str, key: str, partitions: int) -> int:
    """The leader of the internal-topic partition `key` hashes to (its coordinator)."""
    partition = partition_for(key, partitions)
    found: dict[int, int] = {}

    def led() -> bool:
        found.update(leaders(admin, topic))
        return found.get(partition, -1) in ALL

    wait_until(led, timeout=30, what=f"a leader of {topic}-{partition}")
    return found[partition]


def group_away_from(admin: AdminClient, broker: int) -> str:
    """A group id whose coordinator is not `broker`: its offsets' markers cross brokers."""
    for _ in range(100):
        group = unique("txn-group")
        if leader_of_key(admin, "__consumer_offsets", group, OFFSETS_PARTITIONS) != broker:
            return group
    raise AssertionError(f"every group lands on broker {broker}")


def open_offsets_topic(bootstrap: str) -> None:
    """__consumer_offsets exists once a group coordinator was looked up."""
    probe = Consumer({"bootstrap.servers": bootstrap, "group.id": unique("probe")})
    try:
        probe.committed([TopicPartition("anything", 0)], timeout=30)
    except Exception:  # the topic does not exist: the lookup happened all the same
        pass
    finally:
        probe.close()


def expected(values: list[tuple[int, bytes]]) -> dict[int, list[bytes]]:
    out: dict[int, list[bytes]] = {p: [] for p in range(3)}
    for partition, value in values:
        out[partition].append(value)
    return out


def test_tv1_transactions_over_three_leaders_commit_and_abort(txn_cluster: OdradekCluster) -> None:
    cluster = txn_cluster
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic, source = unique("txn-out"), unique("txn-in")
    create_topic(admin, topic, 3)
    create_topic(admin, source, 1)
    led = wait_for_leaders(admin, topic, 3, ALL)
    assert sorted(led.values()) == [1, 2, 3]
    tid = unique("tid")
    p = txn_producer(cluster.bootstrap, tid)
    p.init_transactions(60)
    coordinator = leader_of_key(admin, "__transaction_state", tid, TXN_STATE_PARTITIONS)
    open_offsets_topic(cluster.bootstrap)
    group = group_away_from(admin, coordinator)
    reader = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        committed: list[tuple[int, bytes]] = []
        for round_, commit in (("one", True), ("aborted", False), ("two", True)):
            p.begin_transaction()
            values = [(i % 3, f"{round_}-{i}".encode()) for i in range(30)]
            for partition, value in values:
                p.produce(topic, value, partition=partition)
            offset = {"one": 10, "aborted": 20, "two": 30}[round_]
            p.send_offsets_to_transaction(
                [TopicPartition(source, 0, offset)], reader.consumer_group_metadata(), 60
            )
            if commit:
                p.commit_transaction(60)
                committed += values
            else:
                p.abort_transaction(60)
        # The aborted records sit before the second commit's: reading every committed one
        # means having read past them.
        got = consume_all(cluster.bootstrap, topic, 3, len(committed))
        assert got == expected(committed)
        # The offsets of the committed transactions, the aborted one's dropped.
        wait_until(
            lambda: reader.committed([TopicPartition(source, 0)], timeout=10)[0].offset == 30,
            timeout=30, what="the committed offset of the last transaction",
        )
    finally:
        reader.close()


def find_txn_coordinator(cluster: OdradekCluster, tid: str) -> int:
    """FindCoordinator (which creates __transaction_state), until a leader is known."""
    found: list[int] = []
    with WireClient(cluster.broker(1).bootstrap, timeout=60) as c:

        def known() -> bool:
            resp: Any = c.call(10, 4, FindCoordinatorRequest(key_type=1, coordinator_keys=[tid]))
            found[:] = [resp.coordinators[0].node_id] if resp.coordinators[0].error_code == ErrorCode.NONE else []
            return bool(found)

        wait_until(known, timeout=30, what=f"the coordinator of {tid}")
    return found[0]


def _end_txn_v5(c: WireClient, tid: str, pid: int, epoch: int, commit: bool) -> Any:
    deadline = time.monotonic() + 30
    while True:
        resp: Any = c.call(26, 5, EndTxnRequest(transactional_id=tid, producer_id=pid, producer_epoch=epoch,
                                                committed=commit))
        if resp.error_code != ErrorCode.CONCURRENT_TRANSACTIONS:
            return resp
        assert time.monotonic() < deadline, "EndTxn stayed busy"
        time.sleep(0.02)


def _produce_tv2(c: WireClient, topic: str, partition: int, tid: str, pid: int, epoch: int, seq: int) -> int:
    """Produce v12 (the partition added by the Produce itself), retried while the leader
    answers NOT_ENOUGH_REPLICAS (the coordinator busy or moving), as a producer does."""
    deadline = time.monotonic() + 30
    while True:
        out = produce(c, {(topic, partition): producer_batch(pid, epoch, seq, txn=True)}, tid=tid, version=12)
        code = out[(topic, partition)][0]
        if code != ErrorCode.NOT_ENOUGH_REPLICAS:
            return code
        assert time.monotonic() < deadline, "the leader never verified the batch"
        time.sleep(0.05)


def test_tv2_implicit_adds_on_three_leaders_commit_and_abort(txn_cluster: OdradekCluster) -> None:
    cluster = txn_cluster
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("tv2-out")
    create_topic(admin, topic, 3)
    led = wait_for_leaders(admin, topic, 3, ALL)
    assert sorted(led.values()) == [1, 2, 3]
    tid = unique("tv2-tid")
    coordinator = find_txn_coordinator(cluster, tid)
    clients = {n: WireClient(cluster.broker(n).bootstrap, timeout=60) for n in ALL}
    try:
        init: list[Any] = []

        def initialized() -> bool:
            init[:] = [clients[coordinator].call(
                22, 5, InitProducerIdRequest(transactional_id=tid, transaction_timeout_ms=60_000))]
            return bool(init[0].error_code == ErrorCode.NONE)

        # COORDINATOR_LOAD_IN_PROGRESS while the coordinator loads its partition.
        wait_until(initialized, timeout=30, what="InitProducerId answered")
        pid, epoch = init[0].producer_id, init[0].producer_epoch
        # Transaction 1 committed, 2 aborted, 3 committed; each EndTxn v5 bumps the epoch.
        for commit in (True, False, True):
            for partition in range(3):
                client = clients[led[partition]]
                assert _produce_tv2(client, topic, partition, tid, pid, epoch, 0) == ErrorCode.NONE
            ended = _end_txn_v5(clients[coordinator], tid, pid, epoch, commit)
            assert (ended.error_code, ended.producer_epoch) == (ErrorCode.NONE, epoch + 1)
            epoch += 1
    finally:
        for client in clients.values():
            client.close()
    # Two records per batch ("v0", "v1"), the aborted transaction's between the commits.
    got = consume_all(cluster.bootstrap, topic, 3, 3 * 2 * 2)
    assert got == {p: [b"v0", b"v1", b"v0", b"v1"] for p in range(3)}


def txn_state(bootstrap: str, tid: str) -> str:
    with WireClient(bootstrap, timeout=30) as c:
        resp: Any = c.call(65, 0, DescribeTransactionsRequest(transactional_ids=[tid]))
    return str(resp.transaction_states[0].transaction_state)


def read_back_diagnosis(cluster: OdradekCluster, survivors: set[int], topic: str, tid: str) -> str:
    """For the message of a failed read after a coordinator's kill: each partition's leader,
    high watermark and last stable offset, and the transaction's state at its coordinator
    now. A last stable offset below the high watermark is a transaction still open at the
    partition (its marker missing); equal ones are a reader that did not get there."""
    bootstrap = ",".join(cluster.broker(n).bootstrap for n in survivors)
    lines = []
    try:
        lines.append(f"leaders {leaders(AdminClient({'bootstrap.servers': bootstrap}), topic)}")
        for isolation in ("read_uncommitted", "read_committed"):
            probe = Consumer({"bootstrap.servers": bootstrap, "group.id": unique("probe"),
                              "isolation.level": isolation})
            try:
                ends = [probe.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in range(3)]
            finally:
                probe.close()
            lines.append(f"{'high watermarks' if isolation == 'read_uncommitted' else 'last stable offsets'} {ends}")
        with WireClient(next(iter(cluster.broker(n).bootstrap for n in sorted(survivors))), timeout=30) as c:
            found: Any = c.call(10, 4, FindCoordinatorRequest(key_type=1, coordinator_keys=[tid]))
        node = found.coordinators[0].node_id
        lines.append(f"coordinator {node}: {txn_state(cluster.broker(node).bootstrap, tid)}")
    except Exception as exc:  # a diagnosis, not a check: what it could not learn, said
        lines.append(f"diagnosis stopped: {exc!r}")
    return "; ".join(lines)


def hold_markers_then_kill_coordinator(
    cluster: OdradekCluster, tid: str, coordinator: int, stalled: int, commit: Callable[[], None]
) -> set[int]:
    """Pauses (SIGSTOP) `stalled`, the leader of a data partition, so that the markers of
    the transaction `commit` ends cannot all be written: the transaction stays in
    PrepareCommit at `coordinator`, which is then killed (SIGKILL); `stalled` resumes. The
    brokers left."""
    cluster.broker(stalled).pause()
    try:
        commit()
        # Answered once PrepareCommit is durable; the marker to the paused leader hangs.
        assert txn_state(cluster.broker(coordinator).bootstrap, tid) == "PrepareCommit"
        cluster.broker(coordinator).kill()
    finally:
        cluster.broker(stalled).resume()
    return ALL - {coordinator}


def test_tv1_kill_9_of_the_coordinator_between_prepare_commit_and_the_markers(txn_cluster: OdradekCluster) -> None:
    cluster = txn_cluster
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("txn-kill")
    create_topic(admin, topic, 3)
    led = wait_for_leaders(admin, topic, 3, ALL)
    assert sorted(led.values()) == [1, 2, 3]
    tid = unique("tid-kill")
    p = txn_producer(cluster.bootstrap, tid)
    p.init_transactions(60)
    coordinator = leader_of_key(admin, "__transaction_state", tid, TXN_STATE_PARTITIONS)
    stalled = next(leader for leader in led.values() if leader != coordinator)
    p.begin_transaction()
    values = [(i % 3, f"held-{i}".encode()) for i in range(30)]
    for partition, value in values:
        p.produce(topic, value, partition=partition)
    assert p.flush(60) == 0
    survivors = hold_markers_then_kill_coordinator(
        cluster, tid, coordinator, stalled, lambda: p.commit_transaction(60)
    )
    bootstrap = ",".join(cluster.broker(n).bootstrap for n in survivors)
    # The new coordinator completes the transaction: every record visible, once.
    got = consume_all(bootstrap, topic, 3, len(values))
    assert got == expected(values), read_back_diagnosis(cluster, survivors, topic, tid)
    # The same transactional id carries on at the new coordinator.
    again = txn_producer(bootstrap, tid)
    again.init_transactions(60)
    again.begin_transaction()
    more = [(i % 3, f"after-{i}".encode()) for i in range(6)]
    for partition, value in more:
        again.produce(topic, value, partition=partition)
    again.commit_transaction(60)
    assert consume_all(bootstrap, topic, 3, len(values) + len(more)) == expected(values + more)


def test_tv2_kill_9_of_the_coordinator_between_prepare_commit_and_the_markers(txn_cluster: OdradekCluster) -> None:
    cluster = txn_cluster
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("tv2-kill")
    create_topic(admin, topic, 3)
    led = wait_for_leaders(admin, topic, 3, ALL)
    assert sorted(led.values()) == [1, 2, 3]
    tid = unique("tv2-tid-kill")
    coordinator = find_txn_coordinator(cluster, tid)
    stalled = next(leader for leader in led.values() if leader != coordinator)
    clients = {n: WireClient(cluster.broker(n).bootstrap, timeout=60) for n in ALL}
    try:
        init: list[Any] = []

        def initialized() -> bool:
            init[:] = [clients[coordinator].call(
                22, 5, InitProducerIdRequest(transactional_id=tid, transaction_timeout_ms=60_000))]
            return bool(init[0].error_code == ErrorCode.NONE)

        wait_until(initialized, timeout=30, what="InitProducerId answered")
        pid, epoch = init[0].producer_id, init[0].producer_epoch
        for partition in range(3):
            assert _produce_tv2(clients[led[partition]], topic, partition, tid, pid, epoch, 0) == ErrorCode.NONE

        def commit() -> None:
            ended = _end_txn_v5(clients[coordinator], tid, pid, epoch, True)
            assert (ended.error_code, ended.producer_epoch) == (ErrorCode.NONE, epoch + 1)

        survivors = hold_markers_then_kill_coordinator(cluster, tid, coordinator, stalled, commit)
    finally:
        for client in clients.values():
            client.close()
    bootstrap = ",".join(cluster.broker(n).bootstrap for n in survivors)
    got = consume_all(bootstrap, topic, 3, 3 * 2)
    assert got == {p: [b"v0", b"v1"] for p in range(3)}, read_back_diagnosis(cluster, survivors, topic, tid)


def test_markers_follow_a_data_partition_to_its_new_leader(txn_cluster: OdradekCluster) -> None:
    """The leader of a data partition is paused while the markers are written, then killed:
    the coordinator retries that partition's marker until its new leader writes it."""
    cluster = txn_cluster
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("txn-moved")
    create_topic(admin, topic, 3)
    led = wait_for_leaders(admin, topic, 3, ALL)
    assert sorted(led.values()) == [1, 2, 3]
    tid = unique("tid-moved")
    p = txn_producer(cluster.bootstrap, tid)
    p.init_transactions(60)
    coordinator = leader_of_key(admin, "__transaction_state", tid, TXN_STATE_PARTITIONS)
    victim = next(leader for leader in led.values() if leader != coordinator)
    p.begin_transaction()
    values = [(i % 3, f"moved-{i}".encode()) for i in range(30)]
    for partition, value in values:
        p.produce(topic, value, partition=partition)
    assert p.flush(60) == 0
    cluster.broker(victim).pause()
    try:
        p.commit_transaction(60)
        assert txn_state(cluster.broker(coordinator).bootstrap, tid) == "PrepareCommit"
        cluster.broker(victim).kill()
    finally:
        cluster.broker(victim).resume()
    survivors = ALL - {victim}
    bootstrap = ",".join(cluster.broker(n).bootstrap for n in survivors)
    wait_until(lambda: txn_state(cluster.broker(coordinator).bootstrap, tid) == "CompleteCommit",
               timeout=60, what="the markers written at the new leader")
    assert consume_all(bootstrap, topic, 3, len(values)) == expected(values)


def _init_2pc(c: WireClient, tid: str, *, keep: bool) -> Any:
    """InitProducerId v6 with Enable2Pc, retried while the coordinator loads or completes."""
    deadline = time.monotonic() + 60
    while True:
        resp: Any = c.call(22, 6, InitProducerIdRequest(
            transactional_id=tid, transaction_timeout_ms=60_000, enable2_pc=True, keep_prepared_txn=keep))
        if resp.error_code not in (ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
                                   ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE):
            return resp
        assert time.monotonic() < deadline, f"InitProducerId stayed busy: {resp.error_code}"
        time.sleep(0.05)


def test_kip_939_prepared_on_three_leaders_survives_its_coordinator_and_commits(
    txn_cluster: OdradekCluster,
) -> None:
    """A two-phase-commit transaction prepared on partitions of all three brokers: its
    coordinator is killed (SIGKILL), the new one keeps it (KeepPreparedTxn) and commits it."""
    cluster = txn_cluster
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("kip939")
    create_topic(admin, topic, 3)
    led = wait_for_leaders(admin, topic, 3, ALL)
    assert sorted(led.values()) == [1, 2, 3]
    tid = unique("ext")
    coordinator = find_txn_coordinator(cluster, tid)
    clients = {n: WireClient(cluster.broker(n).bootstrap, timeout=60) for n in ALL}
    try:
        first = _init_2pc(clients[coordinator], tid, keep=False)
        assert first.error_code == ErrorCode.NONE
        pid, epoch = first.producer_id, first.producer_epoch
        for partition in range(3):
            assert _produce_tv2(clients[led[partition]], topic, partition, tid, pid, epoch, 0) == ErrorCode.NONE
    finally:
        for client in clients.values():
            client.close()
    cluster.broker(coordinator).kill()
    survivors = ALL - {coordinator}
    # The new coordinator of the id, among the survivors.
    with WireClient(cluster.broker(min(survivors)).bootstrap, timeout=60) as c:
        found: list[int] = []

        def moved() -> bool:
            resp: Any = c.call(10, 4, FindCoordinatorRequest(key_type=1, coordinator_keys=[tid]))
            found[:] = [resp.coordinators[0].node_id]
            return resp.coordinators[0].error_code == ErrorCode.NONE and found[0] in survivors

        wait_until(moved, timeout=30, what=f"a coordinator of {tid} among {sorted(survivors)}")
    with WireClient(cluster.broker(found[0]).bootstrap, timeout=60) as c:
        second = _init_2pc(c, tid, keep=True)
        assert second.error_code == ErrorCode.NONE
        assert (second.producer_id, second.producer_epoch) == (pid, epoch + 1)
        assert (second.ongoing_txn_producer_id, second.ongoing_txn_producer_epoch) == (pid, epoch)
        committed = _end_txn_v5(c, tid, pid, epoch + 1, True)
        assert (committed.error_code, committed.producer_epoch) == (ErrorCode.NONE, epoch + 2)
    bootstrap = ",".join(cluster.broker(n).bootstrap for n in survivors)
    assert consume_all(bootstrap, topic, 3, 3 * 2) == {p: [b"v0", b"v1"] for p in range(3)}


@pytest.mark.parametrize("client", ["aiokafka", "kafka-python"])
def test_other_clients_commit_and_abort_over_three_leaders(txn_cluster: OdradekCluster, client: str) -> None:
    """aiokafka and kafka-python (transaction version 1), as confluent-kafka above: data on
    all three brokers, offsets on a group coordinator other than the transaction's."""
    cluster = txn_cluster
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic, source = unique(f"{client}-out"), unique(f"{client}-in")
    create_topic(admin, topic, 3)
    create_topic(admin, source, 1)
    led = wait_for_leaders(admin, topic, 3, ALL)
    assert sorted(led.values()) == [1, 2, 3]
    tid = unique(f"{client}-tid")
    p = TxnProducer(client, cluster.bootstrap, tid)
    try:
        p.init()
        coordinator = leader_of_key(admin, "__transaction_state", tid, TXN_STATE_PARTITIONS)
        open_offsets_topic(cluster.bootstrap)
        group = group_away_from(admin, coordinator)
        committed: list[tuple[int, bytes]] = []
        for round_, commit in (("one", True), ("aborted", False), ("two", True)):
            p.begin()
            values = [(i % 3, f"{round_}-{i}".encode()) for i in range(12)]
            for partition, value in values:
                p.send(topic, partition, value)
            p.flush()
            p.send_offsets({(source, 0): {"one": 10, "aborted": 20, "two": 30}[round_]}, group)
            if commit:
                p.commit()
                committed += values
            else:
                p.abort()
    finally:
        p.close()
    assert consume_all(cluster.bootstrap, topic, 3, len(committed)) == expected(committed)
    reader = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        wait_until(
            lambda: reader.committed([TopicPartition(source, 0)], timeout=10)[0].offset == 30,
            timeout=30, what="the committed offset of the last transaction",
        )
    finally:
        reader.close()


def test_kill_9_of_a_data_leader_under_transactional_load(txn_cluster: OdradekCluster) -> None:
    """Transactions, one record per partition each, run while the leader of a data
    partition (not the coordinator) is killed: every committed transaction's records are
    read back exactly once, in order, and nothing of an aborted one."""
    cluster = txn_cluster
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("txn-load")
    create_topic(admin, topic, 3)
    led = wait_for_leaders(admin, topic, 3, ALL)
    tid = unique("tid-load")
    p = txn_producer(cluster.bootstrap, tid)
    p.init_transactions(60)
    coordinator = leader_of_key(admin, "__transaction_state", tid, TXN_STATE_PARTITIONS)
    victim = next(leader for leader in led.values() if leader != coordinator)
    committed: list[int] = []
    aborted: list[int] = []
    failures: list[BaseException] = []
    stop = threading.Event()

    def load() -> None:
        n = 0
        try:
            while not stop.is_set():
                p.begin_transaction()
                for partition in range(3):
                    p.produce(topic, f"t{n}-{partition}".encode(), partition=partition)
                while True:
                    try:
                        p.commit_transaction(60)
                        committed.append(n)
                        break
                    except KafkaException as exc:
                        if exc.args[0].txn_requires_abort():
                            p.abort_transaction(60)
                            aborted.append(n)
                            break
                        if not exc.args[0].retriable():
                            raise
                n += 1
        except BaseException as exc:
            failures.append(exc)

    worker = threading.Thread(target=load)
    worker.start()
    try:
        wait_until(lambda: len(committed) >= 10 or failures, timeout=60, what="transactions before the kill")
        cluster.broker(victim).kill()
        before = len(committed)
        wait_until(lambda: len(committed) >= before + 10 or failures, timeout=90,
                   what="transactions after the kill")
    finally:
        stop.set()
        worker.join(120)
    assert failures == []
    survivors = ALL - {victim}
    bootstrap = ",".join(cluster.broker(n).bootstrap for n in survivors)
    got = consume_all(bootstrap, topic, 3, 3 * len(committed))
    assert got == {part: [f"t{n}-{part}".encode() for n in committed] for part in range(3)}, (
        f"aborted: {aborted}")
