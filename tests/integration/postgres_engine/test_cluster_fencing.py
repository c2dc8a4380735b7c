"""Fencing over PostgreSQL (storage/postgres/cluster/leadership.py), two engines on one
database as two brokers of a cluster: a round of a leader whose epoch was bumped fails and
leaves nothing in PostgreSQL; the successor reloads the partition with its producer state;
the controller's epoch bump waits for a round in flight; a topic another broker created while
this one was creating the same name stands."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from typing import Any

import asyncpg
import pytest

from broker.dataplane import AppendEntry, ReplicaManager, TransactionSupportedOperation
from protocol.errors import ErrorCode
from storage import errors
from storage.clock import ManualClock
from storage.postgres.cluster import controller
from storage.postgres.cluster.leadership import Leadership
from storage.postgres.cluster.membership import lock_spaces
from storage.postgres.cluster.node import ClusterNode
from storage.postgres.engine import PostgresStorage
from storage.txn_markers import write_txn_markers
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.unit.coordinator.transaction.txn_helpers import Env
from tests.unit.storage.storage_helpers import make_batch


async def open_engine(url: str) -> PostgresStorage:
    return await PostgresStorage.open(url, clock=ManualClock(), producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)


async def lead(storage: PostgresStorage, leadership: Leadership, key: tuple, epoch: int) -> None:
    assert await storage.reload_partition(key, epoch) is not None
    leadership.serving[key] = epoch


async def led_here(storage: PostgresStorage, sql: asyncpg.Connection) -> tuple[tuple, Leadership]:
    """Topic `t` of one partition, led by broker 1 at epoch 0, and this engine that broker."""
    await storage.create_topic("t", 1)
    key = (storage.describe_topic("t").topic_id, 0)
    await sql.execute("INSERT INTO partition_leaders VALUES ($1, 0, 1, 0)", key[0])
    leadership = Leadership(1)
    storage.enable_cluster(leadership)
    await lead(storage, leadership, key, 0)
    return key, leadership


async def both_led_here(storage: PostgresStorage, sql: asyncpg.Connection) -> tuple[tuple, tuple, Leadership]:
    """Topic `t` of two partitions, both led by broker 1 at epoch 0, and this engine that broker."""
    await storage.create_topic("t", 2)
    topic_id = storage.describe_topic("t").topic_id
    p0, p1 = (topic_id, 0), (topic_id, 1)
    await sql.execute("INSERT INTO partition_leaders VALUES ($1, 0, 1, 0), ($1, 1, 1, 0)", topic_id)
    leadership = Leadership(1)
    storage.enable_cluster(leadership)
    await lead(storage, leadership, p0, 0)
    await lead(storage, leadership, p1, 0)
    return p0, p1, leadership


async def led_by_first(
    first: PostgresStorage, second: PostgresStorage, sql: asyncpg.Connection, config: dict[str, str] | None = None
) -> tuple[tuple, Leadership, Leadership]:
    """Topic `t` of one partition over two engines (brokers 1 and 2), led by the first at
    epoch 0."""
    await first.create_topic("t", 1, config)
    assert await second.reload_catalog()
    key = (first.describe_topic("t").topic_id, 0)
    await sql.execute("INSERT INTO partition_leaders VALUES ($1, 0, 1, 0)", key[0])
    one, two = Leadership(1), Leadership(2)
    first.enable_cluster(one)
    second.enable_cluster(two)
    await lead(first, one, key, 0)
    return key, one, two


async def test_a_fenced_leader_cannot_append_and_its_successor_takes_over(postgres_url: str) -> None:
    first = await open_engine(postgres_url)
    second = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    try:
        key, one, two = await led_by_first(first, second, sql)
        batch = make_batch(2, producer_id=7, producer_epoch=0, base_sequence=0)
        assert (await first.log("t", 0).append(batch, durable=True)).base_offset == 0

        # The controller moves the partition to broker 2.
        await sql.execute("UPDATE partition_leaders SET leader_id = 2, leader_epoch = 1")
        late = make_batch(2, producer_id=7, producer_epoch=0, base_sequence=2)
        try:
            await first.log("t", 0).append(late, durable=True)
            raise AssertionError("a fenced round committed")
        except errors.KafkaStorageError as exc:
            assert "fenced" in str(exc)
        assert key not in one.serving
        assert first.log("t", 0).closed
        assert await sql.fetchval("SELECT count(*) FROM batches") == 1

        # The successor reads the partition back: the first batch, and the producer's
        # state (a retry of it is a duplicate, the late batch is next in sequence).
        await lead(second, two, key, 1)
        log = second.log("t", 0)
        assert (log.log_end_offset, log.high_watermark) == (2, 2)
        assert (await log.append(batch, durable=True)).base_offset == 0
        assert (await log.append(late, durable=True)).base_offset == 2
        assert await sql.fetchval("SELECT count(*) FROM batches") == 2
    finally:
        await sql.close()
        await first.close()
        await second.close()


async def test_the_epoch_bump_waits_for_a_round_in_flight(postgres_url: str) -> None:
    storage = await open_engine(postgres_url)
    round_conn = await asyncpg.connect(postgres_url)
    controller_conn = await asyncpg.connect(postgres_url)
    try:
        await storage.create_topic("t", 1)
        topic_id = storage.describe_topic("t").topic_id
        await round_conn.execute("INSERT INTO partition_leaders VALUES ($1, 0, 1, 0)", topic_id)
        # A round holding its FOR SHARE lock (leadership.Leadership.fence) ...
        transaction = round_conn.transaction()
        await transaction.start()
        await round_conn.fetch("SELECT * FROM partition_leaders FOR SHARE")
        # ... and a controller that finds no live broker: it must set leader NULL, epoch 1.
        spaces = lock_spaces(await controller_conn.fetchval("SELECT current_schema()"))
        election = asyncio.create_task(controller.elect(controller_conn, spaces))
        pid = controller_conn.get_server_pid()
        # Polled from a third session: the round's connection is inside its transaction.
        observer = await asyncpg.connect(postgres_url)
        try:
            deadline = asyncio.get_running_loop().time() + 15
            while not await observer.fetchval(
                "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $1", pid
            ):
                assert asyncio.get_running_loop().time() < deadline, "the controller never waited"
                await asyncio.sleep(0.02)
        finally:
            await observer.close()
        assert not election.done()
        await transaction.commit()
        assert await asyncio.wait_for(election, 15) == 1
        row = await round_conn.fetchrow("SELECT leader_id, leader_epoch FROM partition_leaders")
        assert (row["leader_id"], row["leader_epoch"]) == (None, 1)
    finally:
        await round_conn.close()
        await controller_conn.close()
        await storage.close()


async def test_batches_dropped_on_losing_a_partition_are_never_acknowledged(postgres_url: str) -> None:
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    try:
        key, leadership = await led_here(storage, sql)
        # Written, and lost before its round committed (whether a round took it already,
        # then fenced, or not yet, then failed).
        storage.log("t", 0).append_nowait(make_batch(2))
        leadership.serving.pop(key)
        storage.release({key})
        try:
            await storage.sync()
            raise AssertionError("a dropped batch was acknowledged")
        except errors.KafkaStorageError as exc:
            assert "no longer the leader of" in str(exc)
        # The next rounds carry on.
        await storage.sync()
        assert await sql.fetchval("SELECT count(*) FROM batches") == 0
    finally:
        await sql.close()
        await storage.close()


async def test_a_topic_taken_by_a_reload_during_a_creation_of_the_same_name_stands(postgres_url: str) -> None:
    """Two brokers create one name at once (a CreateTopics on one, a Metadata auto-creation
    on the other): the second's catalog reload installs the first's topic while its own
    creation is under way. That creation then fails TOPIC_ALREADY_EXISTS; installed over the
    first's topic, its catalog write deleted that topic's row and put its own partition
    count in its place, on every broker."""
    first = await open_engine(postgres_url)
    second = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    reloaded = asyncio.Event()
    prepare = second._prepare_logs

    async def prepare_until_reloaded(info: Any, partitions: range) -> Any:
        # The creation held between its name check and its install, where a reload that
        # the first's NOTIFY started can run on a busy broker.
        await reloaded.wait()
        return await prepare(info, partitions)

    second._prepare_logs = prepare_until_reloaded  # type: ignore[method-assign]
    try:
        creating = asyncio.ensure_future(second.create_topic("t", 3))
        await asyncio.sleep(0)
        await first.create_topic("t", 6)
        assert await second.reload_catalog()
        reloaded.set()
        with pytest.raises(errors.TopicAlreadyExistsError):
            await creating
        assert second.describe_topic("t").num_partitions == 6
        # A later catalog write of the second leaves the first's topic alone.
        await second.create_topic("u", 1)
        assert await sql.fetchval("SELECT num_partitions FROM topics WHERE name = 't'") == 6
    finally:
        await sql.close()
        await first.close()
        await second.close()


async def test_the_broker_whose_catalog_write_lost_an_internal_topic_takes_the_winners(
    postgres_url: str,
) -> None:
    """Two brokers starting together both create `__consumer_offsets` on first use (their
    group coordinators' FindCoordinator), their catalog writes in flight at once: the
    second's INSERT waits on the first's uncommitted row of the name, then found it taken.
    It failed its whole round on `topics_name_key` (its writers answered a storage error);
    now it takes the first's topic, one topic id on both, and the coordinator's creation is
    a no-op, as Kafka's DefaultAutoTopicCreationManager swallows TOPIC_ALREADY_EXISTS."""
    from coordinator.log import StorageCoordinatorLog

    first = await open_engine(postgres_url)
    second = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    inserted = asyncio.Event()
    release = asyncio.Event()
    queue_change = first.flusher.queue_change

    def queue_and_hold(change: Any) -> None:
        async def held(conn: asyncpg.Connection) -> None:
            # The first's round, its topic row written, not yet committed.
            await change(conn)
            inserted.set()
            await release.wait()

        first.flusher.queue_change = queue_change  # type: ignore[method-assign]
        queue_change(held)

    first.flusher.queue_change = queue_and_hold  # type: ignore[method-assign]
    name = "__consumer_offsets"
    try:
        winning = asyncio.ensure_future(first.create_topic(name, 3))
        await asyncio.wait_for(inserted.wait(), 5)
        log = StorageCoordinatorLog(second, name, 5, ManualClock())
        losing = asyncio.ensure_future(log.ensure_topic())
        # The second's INSERT waits on the first's transaction.
        for _ in range(500):
            waiting = await sql.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO topics%'"
            )
            if waiting or losing.done():
                break
            await asyncio.sleep(0.01)
        assert waiting == 1
        release.set()
        winner = await winning
        await asyncio.wait_for(losing, 5)
        assert log.exists() and log.num_partitions == 3
        assert second.describe_topic(name).topic_id == winner.topic_id
        assert not second.flusher.failing
        assert await sql.fetch("SELECT topic_id FROM topics WHERE name = $1", name) == [(winner.topic_id,)]
        # Its later catalog writes leave the first's topic alone.
        await second.create_topic("u", 1)
        assert await sql.fetch("SELECT topic_id, num_partitions FROM topics WHERE name = $1", name) == [
            (winner.topic_id, 3)
        ]
    finally:
        release.set()
        await sql.close()
        await first.close()
        await second.close()


async def test_a_creation_whose_name_another_broker_committed_before_any_reload_takes_that_topic(
    postgres_url: str,
) -> None:
    """The other order: the first's topic committed, the second's catalog reload not run yet
    (its NOTIFY in flight). The second's INSERT skipped the taken name, and its creation
    answered success with a topic id PostgreSQL never held."""
    first = await open_engine(postgres_url)
    second = await open_engine(postgres_url)
    try:
        winner = await first.create_topic("__transaction_state", 2)
        with pytest.raises(errors.TopicAlreadyExistsError):
            await second.create_topic("__transaction_state", 4)
        assert second.describe_topic("__transaction_state").topic_id == winner.topic_id
        assert second.describe_topic("__transaction_state").num_partitions == 2
        assert not await second.reload_catalog()
    finally:
        await first.close()
        await second.close()


async def test_a_partition_a_round_found_fenced_is_told_lost_to_the_listeners(postgres_url: str) -> None:
    """A fenced round drops its partition from `serving` at once; the node's listeners (the
    coordinators' onResignation) must still hear of it, or a transaction coordinator serves
    on from memory while another broker leads its `__transaction_state` partition: it
    verified a Produce against a transaction the new coordinator aborted without that
    partition, and a later commit marker of the producer showed the records (G1a)."""
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    node = ClusterNode(
        functools.partial(asyncpg.connect, postgres_url), storage, node_id=1, incarnation="fencing-test",
        endpoints=[], rack=None, session_timeout_ms=60_000, heartbeat_interval_ms=10_000,
    )
    heard: list[tuple[dict, dict]] = []

    async def listen(won: dict, lost: dict) -> None:
        heard.append((won, lost))

    node.listeners.append(listen)
    try:
        await storage.create_topic("t", 1)
        key = (storage.describe_topic("t").topic_id, 0)
        await sql.execute("INSERT INTO partition_leaders VALUES ($1, 0, 1, 0)", key[0])
        storage.enable_cluster(node.leadership)
        await node._apply({key: (1, 0)})
        assert heard == [({key: 0}, {})]

        # The controller moves the partition away; this broker's next round is fenced.
        await sql.execute("UPDATE partition_leaders SET leader_id = 2, leader_epoch = 1")
        try:
            await storage.log("t", 0).append(make_batch(1), durable=True)
            raise AssertionError("a fenced round committed")
        except errors.KafkaStorageError as exc:
            assert "fenced" in str(exc)
        assert key not in node.leadership.serving
        assert node._wake.is_set()  # the pass that tells the listeners runs at once

        # Told even by a pass whose table read predates the move (the round saw newer).
        await node._apply({key: (1, 0)})
        assert heard[1:] == [({}, {key: 0})]
        await node._apply({key: (2, 1)})
        assert heard[2:] == []  # told once
        # Led here again later: loaded again (at the new epoch).
        await sql.execute("UPDATE partition_leaders SET leader_id = 1, leader_epoch = 2")
        await node._apply({key: (1, 2)})
        assert heard[2:] == [({key: 2}, {})]
        assert node.leadership.serving == {key: 2}
    finally:
        await sql.close()
        await storage.close()


class _HeldRound:
    """A target of the flusher's rounds whose sync waits for `go`: the round holding it has
    taken its batches and waits before it connects and passes its fence (tests hold rounds
    so, storage/postgres/group_commit.py `_commit`)."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.reached = threading.Event()

    def sync(self) -> None:
        self.reached.set()
        self.go.wait(15)


async def test_a_round_taken_before_a_partition_was_lost_fails_though_it_is_led_here_again(
    postgres_url: str,
) -> None:
    """A round takes a partition's batch, then the broker loses the partition (its session
    ended while paused) and wins it back at a newer epoch before the round passes its fence:
    the round wrote at the old epoch, whose log was dropped, and must fail (the writer is told
    so) rather than pass against the epoch served now. Else the former leader's write,
    answered OK, lands in PostgreSQL at offsets the reloaded log hands out again (a share
    acknowledgement of a former leader was answered NONE so)."""
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    held = _HeldRound()
    try:
        key, leadership = await led_here(storage, sql)
        storage.flusher.mark_dirty(held)
        writing = asyncio.ensure_future(storage.log("t", 0).append(make_batch(2), durable=True))
        await asyncio.to_thread(held.reached.wait, 15)
        assert held.reached.is_set() and not writing.done()

        # Lost (as ClusterNode._lost), then led here again at epoch 1 (as its `_apply`).
        leadership.serving.pop(key)
        storage.release({key})
        await sql.execute("UPDATE partition_leaders SET leader_epoch = 1")
        await lead(storage, leadership, key, 1)
        held.go.set()
        with pytest.raises(errors.KafkaStorageError, match="fenced"):
            await writing
        assert await sql.fetchval("SELECT count(*) FROM batches") == 0
        # The partition is still served at epoch 1, and its log appends from offset 0.
        assert leadership.serving == {key: 1}
        log = storage.log("t", 0)
        assert not log.closed
        assert (await log.append(make_batch(2), durable=True)).base_offset == 0
        assert await sql.fetchval("SELECT count(*) FROM batches") == 1
    finally:
        held.go.set()
        await sql.close()
        await storage.close()


async def test_a_marker_whose_round_failed_and_whose_log_was_dropped_is_not_answered_written(
    postgres_url: str,
) -> None:
    """WriteTxnMarkers for two partitions (storage/txn_markers.py): the first marker's append
    starts a round that takes it, the second joins the next round, which the one sync()
    waits for. The first partition is elected here but not served yet (a broker resumed
    while it reads the partition back): the round holding its marker fails its fence, and
    the reload drops that log before the round ends. The next round commits the second
    marker only: the first must not be answered NONE, or the coordinator completes the
    transaction with no marker on that partition (read_committed blocked for ever)."""
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    held = _HeldRound()
    try:
        await storage.create_topic("t", 2)
        topic_id = storage.describe_topic("t").topic_id
        p0, p1 = (topic_id, 0), (topic_id, 1)
        await sql.execute("INSERT INTO partition_leaders VALUES ($1, 0, 1, 0), ($1, 1, 1, 0)", topic_id)
        leadership = Leadership(1)
        storage.enable_cluster(leadership)
        await lead(storage, leadership, p1, 0)
        storage.flusher.mark_dirty(held)
        writing = asyncio.ensure_future(write_txn_markers(
            storage, storage.clock, producer_id=7, producer_epoch=0, coordinator_epoch=1, committed=True,
            partitions=[("t", 0), ("t", 1)], transaction_version=2,
        ))
        await asyncio.to_thread(held.reached.wait, 15)
        assert held.reached.is_set() and not writing.done()
        # The reload of partition 0 ends (as ClusterNode._apply's): the log the marker went
        # to, opened while it was not served, is dropped.
        await lead(storage, leadership, p0, 0)
        held.go.set()
        answers = await asyncio.wait_for(writing, 15)
        assert answers[("t", 0)] == ErrorCode.KAFKA_STORAGE_ERROR
        assert await sql.fetchval("SELECT count(*) FROM batches WHERE partition = 0") == 0
        # Sent again (the coordinator retries), the marker lands in the reloaded log.
        again = await write_txn_markers(
            storage, storage.clock, producer_id=7, producer_epoch=0, coordinator_epoch=1, committed=True,
            partitions=[("t", 0), ("t", 1)], transaction_version=2,
        )
        assert again == {("t", 0): ErrorCode.NONE, ("t", 1): ErrorCode.NONE}
        assert await sql.fetchval("SELECT count(*) FROM batches WHERE partition = 0 AND control") == 1
        assert storage.log("t", 0).high_watermark == 1
    finally:
        held.go.set()
        await sql.close()
        await storage.close()


async def test_a_produce_to_a_partition_lost_while_its_round_ran_is_not_acknowledged(postgres_url: str) -> None:
    """The same for a Produce (acks=all) of two partitions: the first append's round takes
    its batch, the second joins the next round, which both syncs wait for. The first
    partition is lost while the first round runs (its fence fails, its log is dropped):
    the second round commits the other partition only, and the first batch, never written,
    must not be acknowledged."""
    env = Env()
    coordinator = await env.coordinator()
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    held = _HeldRound()
    try:
        p0, _, leadership = await both_led_here(storage, sql)
        rm = ReplicaManager(storage, coordinator, storage.clock, leadership=leadership)
        storage.flusher.mark_dirty(held)
        producing = asyncio.ensure_future(rm.append_records(
            [AppendEntry("t", 0, make_batch(2)), AppendEntry("t", 1, make_batch(2))],
            acks=-1, transactional_id=None, operation=TransactionSupportedOperation.DEFAULT_ERROR,
        ))
        await asyncio.to_thread(held.reached.wait, 15)
        assert held.reached.is_set() and not producing.done()
        # Partition 0 moves to broker 2 (as ClusterNode._apply takes it away).
        await sql.execute("UPDATE partition_leaders SET leader_id = 2, leader_epoch = 1 WHERE partition = 0")
        leadership.serving.pop(p0)
        storage.release({p0})
        held.go.set()
        first, second = await asyncio.wait_for(producing, 15)
        assert first.error == ErrorCode.KAFKA_STORAGE_ERROR
        assert await sql.fetchval("SELECT count(*) FROM batches WHERE partition = 0") == 0
        assert second.error == ErrorCode.NONE
        assert await sql.fetchval("SELECT count(*) FROM batches WHERE partition = 1") == 1
    finally:
        held.go.set()
        await sql.close()
        await storage.close()


async def test_markers_to_a_partition_elected_here_but_not_served_yet_are_refused(postgres_url: str) -> None:
    """WriteTxnMarkers at the data plane (broker/dataplane/replica_manager.py): a partition
    elected here but still being read back answers NOT_LEADER_OR_FOLLOWER (the coordinator
    retries) and nothing is appended to it; a served one takes its marker."""
    env = Env()
    coordinator = await env.coordinator()
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    try:
        await storage.create_topic("t", 2)
        topic_id = storage.describe_topic("t").topic_id
        await sql.execute("INSERT INTO partition_leaders VALUES ($1, 0, 1, 0), ($1, 1, 1, 0)", topic_id)
        leadership = Leadership(1)
        storage.enable_cluster(leadership)
        await lead(storage, leadership, (topic_id, 1), 0)
        rm = ReplicaManager(storage, coordinator, storage.clock, leadership=leadership)
        answers = await rm.write_txn_markers(
            producer_id=7, producer_epoch=0, coordinator_epoch=1, committed=True,
            partitions=[("t", 0), ("t", 1)], transaction_version=2,
        )
        assert answers == {("t", 0): ErrorCode.NOT_LEADER_OR_FOLLOWER, ("t", 1): ErrorCode.NONE}
        assert await sql.fetchval("SELECT count(*) FROM batches WHERE partition = 0") == 0
        assert await sql.fetchval("SELECT count(*) FROM batches WHERE partition = 1 AND control") == 1
        # Served once read back: the marker sent again lands at the log end.
        await lead(storage, leadership, (topic_id, 0), 0)
        again = await rm.write_txn_markers(
            producer_id=7, producer_epoch=0, coordinator_epoch=1, committed=True,
            partitions=[("t", 0)], transaction_version=2,
        )
        assert again == {("t", 0): ErrorCode.NONE}
        assert storage.log("t", 0).high_watermark == 1
    finally:
        await sql.close()
        await storage.close()


async def test_a_log_sync_fails_when_its_batch_was_dropped_while_another_round_committed(
    postgres_url: str,
) -> None:
    """PartitionLog.sync (storage/log.py `Log.sync`) covers its own log's writes: the batch of
    partition 0 went to the round its append started, partition 1's to the next, which the
    sync of partition 0's log waits for (the flusher's sync waits for the round taking what
    is dirty). Partition 0 is lost while the first round runs: that round fails its fence and
    the log is dropped; the next round commits partition 1 only. The sync of partition 0's
    log must fail, and partition 1's succeed."""
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    held = _HeldRound()
    try:
        p0, _, leadership = await both_led_here(storage, sql)
        first, second = storage.log("t", 0), storage.log("t", 1)
        storage.flusher.mark_dirty(held)
        first.append_nowait(make_batch(2))  # starts the round, held before its fence
        second.append_nowait(make_batch(2))  # the next round
        syncing = asyncio.gather(first.sync(), second.sync(), return_exceptions=True)
        await asyncio.to_thread(held.reached.wait, 15)
        assert held.reached.is_set() and not syncing.done()
        leadership.serving.pop(p0)  # lost, as ClusterNode._apply takes it away
        storage.release({p0})
        held.go.set()
        lost, kept = await asyncio.wait_for(syncing, 15)
        assert isinstance(lost, errors.KafkaStorageError)
        assert "not made durable" in str(lost)
        assert first.high_watermark == 0
        assert await sql.fetchval("SELECT count(*) FROM batches WHERE partition = 0") == 0
        assert kept is None
        assert second.high_watermark == 2
        assert await sql.fetchval("SELECT count(*) FROM batches WHERE partition = 1") == 1
    finally:
        held.go.set()
        await sql.close()
        await storage.close()


async def _pg_log(sql: asyncpg.Connection) -> tuple[int, list[int]]:
    """The one partition's log start and its batches' base offsets, as PostgreSQL holds them
    (what the next leader reads back)."""
    start = await sql.fetchval("SELECT log_start_offset FROM partitions WHERE partition = 0") or 0
    bases = [r["base_offset"] for r in await sql.fetch("SELECT DISTINCT base_offset FROM batches ORDER BY 1")]
    return start, bases


async def test_a_log_start_moved_by_a_deposed_leader_never_commits_under_its_successor(postgres_url: str) -> None:
    """A round made only of queued changes is fenced like one holding batches (Kafka: only
    the current leader changes a partition's log). The first leader answers a DeleteRecords
    and queues the log start move; its round waits (a paused broker) while the partition
    moves to the second broker, which reads it back and appends. The first's round must
    fail its fence, and the change never commit after (the next rounds drop it): else
    PostgreSQL's log start and batches no longer match the log the successor serves."""
    first = await open_engine(postgres_url)
    second = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    held = _HeldRound()
    try:
        key, one, two = await led_by_first(first, second, sql)
        for _ in range(4):
            await first.log("t", 0).append(make_batch(1), durable=True)
        first.flusher.mark_dirty(held)
        deleting = asyncio.ensure_future(first.log("t", 0).delete_records_before(2))  # its round held
        await asyncio.to_thread(held.reached.wait, 15)
        assert not deleting.done()  # answered once its round commits

        # The controller moves the partition to broker 2, which reads it back and appends.
        await sql.execute("UPDATE partition_leaders SET leader_id = 2, leader_epoch = 1")
        await lead(second, two, key, 1)
        log = second.log("t", 0)
        assert (log.log_start_offset, log.high_watermark) == (0, 4)
        assert (await log.append(make_batch(1), durable=True)).base_offset == 4

        held.go.set()
        with pytest.raises(errors.KafkaStorageError, match="fenced"):
            await asyncio.wait_for(deleting, 15)
        assert key not in one.serving and first.log("t", 0).closed
        await first.flusher.sync()  # the next round: the change is dropped, not written
        assert not first.flusher._changes.changes
        assert await _pg_log(sql) == (0, [0, 1, 2, 3, 4])
        # The successor's own DeleteRecords is answered once committed.
        assert await log.delete_records_before(3) == 3
        assert await _pg_log(sql) == (3, [3, 4])
    finally:
        held.go.set()
        await sql.close()
        await first.close()
        await second.close()


@pytest.mark.parametrize("epoch_after", [1, 0])
async def test_a_log_start_moved_by_a_dropped_log_never_commits_once_led_here_again(
    postgres_url: str, epoch_after: int
) -> None:
    """A DeleteRecords that found the log (and waited for its high watermark) while the
    partition was lost and led here again, at a newer epoch or at the same one (a lost
    session, no other leader meanwhile), moves the log start of the log that was dropped:
    the log served now, read back, never made the change, and it must not commit, though
    the fence would pass."""
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    try:
        key, leadership = await led_here(storage, sql)
        dropped = storage.log("t", 0)
        for _ in range(4):
            await dropped.append(make_batch(1), durable=True)
        # Lost (as ClusterNode._apply takes it away), then led here again at epoch 1.
        leadership.serving.pop(key)
        storage.release({key})
        await sql.execute("UPDATE partition_leaders SET leader_epoch = $1", epoch_after)
        await lead(storage, leadership, key, epoch_after)
        with pytest.raises(errors.KafkaStorageError, match="the log was dropped"):
            await dropped.delete_records_before(2)
        await storage.sync()
        assert await _pg_log(sql) == (0, [0, 1, 2, 3])
        assert storage.log("t", 0).log_start_offset == 0
    finally:
        await sql.close()
        await storage.close()


async def test_a_cleaner_swap_of_a_deposed_leader_never_resurrects_what_its_successor_deleted(
    postgres_url: str,
) -> None:
    """The first leader's cleaner swaps a cleaned segment in for the log's closed segments;
    the round writing the swap waits while the partition moves to the second broker, which
    moves the log start past them (DeleteRecords). Committed after, the swap would delete
    the successor's rows of that range and write the cleaned batches again below the log
    start it committed: it must fail its fence and never commit."""
    from storage.cleaner import clean_log

    first = await open_engine(postgres_url)
    second = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    held = _HeldRound()
    try:
        key, one, two = await led_by_first(first, second, sql, config={"cleanup.policy": "compact,delete"})
        log = first.log("t", 0)
        for prefix in (b"a", b"b", b"c"):  # three closed segments of two keys each
            await log.append(make_batch(2, key_prefix=prefix), durable=True)
            log.roll()
        await first.sync()
        assert await _pg_log(sql) == (0, [0, 2, 4])
        first.flusher.mark_dirty(held)
        assert await clean_log(log, first.clock.now_ms(), force=True) is not None  # the swap's round, held
        await asyncio.to_thread(held.reached.wait, 15)

        await sql.execute("UPDATE partition_leaders SET leader_id = 2, leader_epoch = 1")
        await lead(second, two, key, 1)
        assert await second.log("t", 0).delete_records_before(4) == 4
        assert await _pg_log(sql) == (4, [4])

        held.go.set()
        # The round after the held one, which holds the cleaner checkpoint queued after the
        # swap (and the swap again, had its round failed otherwise): both dropped.
        await asyncio.wait_for(first.flusher.sync(), 15)
        assert await _pg_log(sql) == (4, [4])
        assert key not in one.serving and log.closed  # the held round failed its fence
        assert not first.flusher._changes.changes
        assert await sql.fetchval("SELECT cleaner_checkpoint FROM partitions WHERE partition = 0") == 0
    finally:
        held.go.set()
        await sql.close()
        await first.close()
        await second.close()


async def test_a_round_taken_before_a_lost_session_writes_nothing_once_led_here_again_at_the_same_epoch(
    postgres_url: str,
) -> None:
    """A round takes a partition's batch; the broker's session is lost (it releases every
    partition) and the partition is led here again at the same epoch (no other leader
    meanwhile), read back without the batch, before the round passes its fence, which the
    epoch lets pass. The round must not write the dropped log's batch: the reloaded log
    hands its offsets out again (its next round would fail on them for ever)."""
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    held = _HeldRound()
    try:
        key, leadership = await led_here(storage, sql)
        storage.flusher.mark_dirty(held)
        writing = asyncio.ensure_future(storage.log("t", 0).append(make_batch(2), durable=True))
        await asyncio.to_thread(held.reached.wait, 15)
        assert held.reached.is_set() and not writing.done()

        leadership.serving.pop(key)  # the session lost (ClusterNode releases what it served)
        storage.release({key})
        await lead(storage, leadership, key, 0)
        held.go.set()
        with pytest.raises(errors.KafkaStorageError, match="not made durable"):
            await asyncio.wait_for(writing, 15)
        assert await sql.fetchval("SELECT count(*) FROM batches") == 0
        log = storage.log("t", 0)
        assert (await log.append(make_batch(2), durable=True)).base_offset == 0
        assert await sql.fetchval("SELECT count(*) FROM batches") == 1
    finally:
        held.go.set()
        await sql.close()
        await storage.close()


class _SlowChange:
    """A change of no log, queued last in a round: the round, past its fence and its other
    writes, waits there before its COMMIT until `release` (a slow connection)."""

    def __init__(self) -> None:
        self.entered, self.release = asyncio.Event(), asyncio.Event()

    async def __call__(self, conn: asyncpg.Connection) -> None:
        self.entered.set()
        await self.release.wait()


async def _led_again_while_the_round_commits(
    storage: PostgresStorage, sql: asyncpg.Connection, leadership: Leadership, key: tuple, slow: _SlowChange,
    committing: asyncio.Future[Any],
) -> None:
    """With the round waiting in `slow`: the session lost (ClusterNode releases what it
    served) and the partition read back at the same epoch, which may wait for a lock only;
    then the round commits and the reload ends."""
    await asyncio.wait_for(slow.entered.wait(), 15)
    leadership.serving.pop(key)
    storage.release({key})
    reloading = asyncio.ensure_future(lead(storage, leadership, key, 0))
    pid = storage._reloads._conn.get_server_pid()  # type: ignore[union-attr]
    deadline = asyncio.get_running_loop().time() + 15
    while not reloading.done() and not await sql.fetchval(
        "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $1", pid
    ):
        assert asyncio.get_running_loop().time() < deadline, "the reload neither ended nor waited"
        await asyncio.sleep(0.02)
    slow.release.set()
    with contextlib.suppress(errors.KafkaStorageError):  # its log dropped: answered so or not
        await asyncio.wait_for(committing, 15)
    await asyncio.wait_for(reloading, 15)


async def test_a_partition_led_here_again_at_the_same_epoch_is_read_back_after_a_round_that_passed_its_fence(
    postgres_url: str,
) -> None:
    """A round passed its fence and wrote a partition's batch, and waits before its COMMIT
    while the broker's session is lost and the partition led here again at the same epoch:
    the fence's FOR SHARE lock does not hold back a reload at that epoch (no row is
    updated). Read back before that COMMIT, the log would lack the batch and hand its
    offsets out again, every round after failing on them. The reload waits for the round,
    and reads the batch back."""
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    slow = _SlowChange()
    try:
        key, leadership = await led_here(storage, sql)
        storage.log("t", 0).append_nowait(make_batch(2), lazy=True)
        storage.flusher.queue_change(slow)  # the same round, started now
        await _led_again_while_the_round_commits(
            storage, sql, leadership, key, slow, asyncio.ensure_future(storage.flusher.sync())
        )
        assert await sql.fetchval("SELECT count(*) FROM batches") == 1
        log = storage.log("t", 0)
        assert (log.log_end_offset, log.high_watermark) == (2, 2)
        assert (await log.append(make_batch(2), durable=True)).base_offset == 2
        assert await sql.fetchval("SELECT count(*) FROM batches") == 2
    finally:
        slow.release.set()
        await sql.close()
        await storage.close()


async def test_a_log_start_committed_after_a_lost_session_is_read_back_at_the_same_epoch(postgres_url: str) -> None:
    """The same for a round's queued change of the log (a DeleteRecords' log start): read
    back before the round's COMMIT, the log would keep a log start and batches PostgreSQL no
    longer has."""
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    held, slow = _HeldRound(), _SlowChange()
    try:
        key, leadership = await led_here(storage, sql)
        for _ in range(4):
            await storage.log("t", 0).append(make_batch(1), durable=True)
        storage.flusher.mark_dirty(held)
        storage.flusher.request_round()  # held, so that the next round takes both changes
        await asyncio.to_thread(held.reached.wait, 15)
        deleting = asyncio.ensure_future(storage.log("t", 0).delete_records_before(2))
        await asyncio.sleep(0)  # its change queued, for the next round
        assert len(storage.flusher._changes.changes) == 1
        storage.flusher.queue_change(slow)
        held.go.set()
        await _led_again_while_the_round_commits(storage, sql, leadership, key, slow, deleting)
        assert await _pg_log(sql) == (2, [2, 3])
        log = storage.log("t", 0)
        assert (log.log_start_offset, log.log_end_offset) == (2, 4)
        assert (await log.append(make_batch(1), durable=True)).base_offset == 4
    finally:
        held.go.set()
        slow.release.set()
        await sql.close()
        await storage.close()


async def test_the_controller_removes_the_rows_of_a_deleted_topics_partitions(postgres_url: str) -> None:
    """A deleted topic's partition_leaders rows go with the controller's next pass (its
    partitions no longer in `topics`); the topic created again under the same name (a new
    topic id) gets rows of its own from epoch 0."""
    storage = await open_engine(postgres_url)
    sql = await asyncpg.connect(postgres_url)
    try:
        spaces = lock_spaces(await sql.fetchval("SELECT current_schema()"))
        await storage.create_topic("t", 2)
        first_id = storage.describe_topic("t").topic_id
        await storage.sync()
        await controller.elect(sql, spaces)
        assert await sql.fetchval("SELECT count(*) FROM partition_leaders WHERE topic_id = $1", first_id) == 2
        await storage.delete_topic("t")
        await storage.sync()
        assert await controller.elect(sql, spaces) == 0
        assert await sql.fetchval("SELECT count(*) FROM partition_leaders") == 0
        await storage.create_topic("t", 1)
        await storage.sync()
        await controller.elect(sql, spaces)
        rows = await sql.fetch("SELECT topic_id, partition, leader_epoch FROM partition_leaders")
        assert [(r["topic_id"], r["partition"], r["leader_epoch"]) for r in rows] == [
            (storage.describe_topic("t").topic_id, 0, 0)
        ]
        assert storage.describe_topic("t").topic_id != first_id
    finally:
        await sql.close()
        await storage.close()
