"""The transaction coordinator follows the leadership of `__transaction_state` partitions
(Kafka's TransactionCoordinator onElection/onResignation): two coordinators over one real
storage engine stand for two brokers sharing PostgreSQL."""

from __future__ import annotations

import asyncio

from coordinator.log import CoordinatorLogError, LogRecord, StorageCoordinatorLog
from coordinator.producer_ids import ProducerIdManager
from coordinator.transaction import CoordinatorStatus, InMemoryMarkerWriter, TransactionCoordinator
from coordinator.transaction.records import TOPIC_CONFIGS, TRANSACTION_STATE_TOPIC
from coordinator.transaction.state import TransactionState as S
from protocol.errors import ErrorCode as E
from storage.clock import ManualClock
from storage.memory import MemoryStorage
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.unit.coordinator.transaction.txn_helpers import TIMEOUT_MS, begin, init, run_ready, txn_config

PARTITIONS = 4


class Brokers:
    """Coordinators owning no partition until elected, on one engine and one clock."""

    def __init__(self) -> None:
        self.engine = MemoryStorage(producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
        self.clock = ManualClock()
        self.config = txn_config(num_partitions=PARTITIONS, retry_backoff_ms=0, concurrent_wait_ms=0)
        # One source of ids for both, as the PostgreSQL sequence is (storage/postgres/producer_ids.py).
        self.ids = ProducerIdManager(None, block_size=10)

    def coordinator(self, writer: InMemoryMarkerWriter | None = None) -> TransactionCoordinator:
        log = StorageCoordinatorLog(self.engine, TRANSACTION_STATE_TOPIC, PARTITIONS, self.clock, TOPIC_CONFIGS)
        return TransactionCoordinator(log, writer or InMemoryMarkerWriter(), self.ids, self.clock, self.config,
                                      owns_all_partitions=False)


async def elect(coord: TransactionCoordinator, partition: int, epoch: int) -> None:
    task = coord.on_election(partition, epoch)
    assert task is not None
    await task


async def resign(coord: TransactionCoordinator, partition: int, epoch: int | None) -> None:
    unloading = coord.on_resignation(partition, epoch)
    assert unloading is not None
    await unloading


async def test_unowned_partitions_answer_not_coordinator() -> None:
    brokers = Brokers()
    a = brokers.coordinator()
    p = a.partition_for("tx")
    assert a.status is CoordinatorStatus.ACTIVE
    assert (await a.init_producer_id("tx", TIMEOUT_MS)).error_code == E.NOT_COORDINATOR
    assert await a.add_partitions("tx", 1, 0, [("t", 0)]) == E.NOT_COORDINATOR
    assert await a.end_txn("tx", 1, 0, True) == E.NOT_COORDINATOR
    assert a.describe("tx")[0] == E.NOT_COORDINATOR
    assert a.verify_partitions("tx", 1, 0, [("t", 0)]) == {("t", 0): E.NOT_COORDINATOR}
    # Idempotent producers need no partition of the transaction state.
    assert (await a.init_producer_id(None, 0)).error_code == E.NONE
    await elect(a, p, 0)
    pid, epoch = await init(a, "tx")
    await begin(a, "tx", pid, epoch, ("t", 0))
    other = next(f"tx{i}" for i in range(100) if a.partition_for(f"tx{i}") != p)
    assert (await a.init_producer_id(other, TIMEOUT_MS)).error_code == E.NOT_COORDINATOR
    assert a.list_transactions().error_code == E.NONE


async def test_election_answers_load_in_progress_until_loaded() -> None:
    brokers = Brokers()
    a, b = brokers.coordinator(), brokers.coordinator()
    p = a.partition_for("tx")
    await elect(a, p, 0)
    pid, epoch = await init(a, "tx")
    await begin(a, "tx", pid, epoch, ("t", 0))
    await resign(a, p, 1)
    task = b.on_election(p, 1)
    assert task is not None
    assert b.status is CoordinatorStatus.LOADING
    assert (await b.init_producer_id("tx", TIMEOUT_MS)).error_code == E.COORDINATOR_LOAD_IN_PROGRESS
    assert await b.end_txn("tx", pid, epoch, True) == E.COORDINATOR_LOAD_IN_PROGRESS
    assert b.describe("tx")[0] == E.COORDINATOR_LOAD_IN_PROGRESS
    assert b.list_transactions().error_code == E.COORDINATOR_LOAD_IN_PROGRESS
    await task
    meta = b.metadata("tx")
    assert meta is not None and (meta.state, meta.producer_id, meta.partitions) == (S.ONGOING, pid, {("t", 0)})
    # The old coordinator no longer answers for it; the new one ends the transaction.
    assert await a.end_txn("tx", pid, epoch, True) == E.NOT_COORDINATOR
    assert a.metadata("tx") is None
    assert await b.end_txn("tx", pid, epoch, True) == E.NONE


async def test_takeover_completes_a_prepared_transaction_at_the_new_coordinator_epoch() -> None:
    """The old coordinator logged PrepareCommit and lost the partition before its markers
    were written: the new one replays the log and completes the transaction, its markers
    carrying the leader epoch it was elected at."""
    brokers = Brokers()
    old_writer = InMemoryMarkerWriter(gate=asyncio.Event())
    new_writer = InMemoryMarkerWriter()
    a, b = brokers.coordinator(old_writer), brokers.coordinator(new_writer)
    p = a.partition_for("tx")
    await elect(a, p, 4)
    pid, epoch = await init(a, "tx")
    await begin(a, "tx", pid, epoch, ("t", 0), ("u", 1))
    assert await a.end_txn("tx", pid, epoch, True) == E.NONE
    await run_ready()
    assert [c.coordinator_epoch for c in old_writer.calls] == [4]
    await resign(a, p, 5)
    # The old coordinator's completion was cancelled: releasing its markers writes nothing.
    assert old_writer.gate is not None
    old_writer.gate.set()
    await run_ready()
    assert old_writer.written == {}
    await elect(b, p, 5)
    await b.wait_for_markers()
    assert new_writer.written == {("t", 0): [(pid, epoch, True)], ("u", 1): [(pid, epoch, True)]}
    assert {c.coordinator_epoch for c in new_writer.calls} == {5}
    meta = b.metadata("tx")
    assert meta is not None and meta.state is S.COMPLETE_COMMIT
    assert await b.end_txn("tx", pid, epoch, True) == E.NONE


async def test_resignation_stops_the_timeout_abort_and_other_partitions_stay() -> None:
    brokers = Brokers()
    a = brokers.coordinator()
    p = a.partition_for("tx")
    other = next(f"tx{i}" for i in range(100) if a.partition_for(f"tx{i}") != p)
    q = a.partition_for(other)
    await elect(a, p, 0)
    await elect(a, q, 0)
    pid, epoch = await init(a, "tx", timeout=1000)
    await begin(a, "tx", pid, epoch, ("t", 0))
    opid, oepoch = await init(a, other, timeout=1000)
    await begin(a, other, opid, oepoch, ("t", 1))
    await resign(a, p, 1)
    brokers.clock.advance(1001)
    # Only the partition still owned has its timed-out transaction aborted.
    assert await a.abort_timed_out_transactions() == [other]
    await a.wait_for_markers()
    assert a.metadata("tx") is None
    kept = a.metadata(other)
    assert kept is not None and kept.state is S.COMPLETE_ABORT


async def test_stale_elections_and_resignations_are_ignored() -> None:
    brokers = Brokers()
    a = brokers.coordinator()
    p = a.partition_for("tx")
    await elect(a, p, 3)
    pid, epoch = await init(a, "tx")
    assert a.on_election(p, 3) is None
    assert a.on_election(p, 1) is None
    assert a.on_resignation(p, 2) is None
    assert a.metadata("tx") is not None
    assert await a.add_partitions("tx", pid, epoch, [("t", 0)]) == E.NONE
    await resign(a, p, 4)
    assert a.on_election(p, 4) is None  # not newer than the resignation
    assert a.on_resignation(p, 5) is None  # not owned
    assert await a.add_partitions("tx", pid, epoch, [("t", 1)]) == E.NOT_COORDINATOR
    await elect(a, p, 6)
    meta = a.metadata("tx")
    assert meta is not None and meta.partitions == {("t", 0)}


async def test_a_write_in_flight_when_resigned_answers_not_coordinator() -> None:
    brokers = Brokers()
    a, b = brokers.coordinator(), brokers.coordinator()
    p = a.partition_for("tx")
    await elect(a, p, 0)
    pid, epoch = await init(a, "tx")
    gate = asyncio.Event()
    append = a.log_store.append

    async def held_append(*args: object, **kwargs: object) -> int:
        await gate.wait()
        return await append(*args, **kwargs)  # type: ignore[arg-type]

    a.log_store.append = held_append  # type: ignore[method-assign]
    adding = asyncio.ensure_future(a.add_partitions("tx", pid, epoch, [("t", 0)]))
    await run_ready()
    await resign(a, p, 1)
    gate.set()
    assert await asyncio.wait_for(adding, 1) == E.NOT_COORDINATOR
    # The step was cancelled before its append: the next owner finds the transaction empty.
    await elect(b, p, 1)
    meta = b.metadata("tx")
    assert meta is not None and meta.state is S.EMPTY


async def test_single_broker_mode_loads_every_partition_at_epoch_zero() -> None:
    brokers = Brokers()
    log = StorageCoordinatorLog(brokers.engine, TRANSACTION_STATE_TOPIC, PARTITIONS, brokers.clock, TOPIC_CONFIGS)
    writer = InMemoryMarkerWriter()
    coord = TransactionCoordinator(log, writer, brokers.ids, brokers.clock, brokers.config)
    assert coord.status is CoordinatorStatus.LOADING
    assert (await coord.init_producer_id("tx", TIMEOUT_MS)).error_code == E.COORDINATOR_LOAD_IN_PROGRESS
    await coord.load()
    assert coord.status is CoordinatorStatus.ACTIVE and coord.coordinator_epoch == 0
    pid, epoch = await init(coord, "tx")
    await begin(coord, "tx", pid, epoch, ("t", 0))
    assert await coord.end_txn("tx", pid, epoch, False) == E.NONE
    await coord.wait_for_markers()
    assert [c.coordinator_epoch for c in writer.calls] == [0]


async def test_a_failed_load_answers_not_coordinator_until_elected_again() -> None:
    """Kafka's failed coordinator load: the partition is not served at all."""
    brokers = Brokers()
    a = brokers.coordinator()
    p = a.partition_for("tx")
    replay = a.log_store.replay

    async def failing_replay(partition: int) -> list[LogRecord]:
        raise CoordinatorLogError(E.KAFKA_STORAGE_ERROR)

    a.log_store.replay = failing_replay  # type: ignore[method-assign]
    await elect(a, p, 1)
    assert (await a.init_producer_id("tx", TIMEOUT_MS)).error_code == E.NOT_COORDINATOR
    a.log_store.replay = replay  # type: ignore[method-assign]
    await elect(a, p, 2)
    assert (await a.init_producer_id("tx", TIMEOUT_MS)).error_code == E.NONE


async def test_a_cluster_coordinator_never_defers_data_durability() -> None:
    """A transaction's data may sit on other brokers, where PrepareCommit's round does not
    reach: in a cluster every leader makes a Produce durable before answering it."""
    brokers = Brokers()
    a = brokers.coordinator()
    p = a.partition_for("tx")
    await elect(a, p, 0)
    pid, epoch = await init(a, "tx")
    await begin(a, "tx", pid, epoch, ("t", 0))
    assert a.state.get("tx") is not None
    assert not a.defers_data_durability("tx")
    assert not a.defers_data_durability(None)


async def test_ensure_log_creates_the_transaction_state_topic() -> None:
    """FindCoordinator creates `__transaction_state`: in a cluster nothing else does."""
    brokers = Brokers()
    a = brokers.coordinator()
    assert TRANSACTION_STATE_TOPIC not in [t.name for t in brokers.engine.list_topics()]
    assert await a.ensure_log() == E.NONE
    assert await a.ensure_log() == E.NONE
    assert brokers.engine.describe_topic(TRANSACTION_STATE_TOPIC).num_partitions == PARTITIONS
