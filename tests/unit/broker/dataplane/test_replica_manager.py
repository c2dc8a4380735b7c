"""The data plane (broker/dataplane/replica_manager.py) on a real in-memory storage engine
and a real transaction coordinator: KIP-890 verification and its answers per Produce
version, the fetch long poll woken by an append, and DeleteRecords' refusals."""

from __future__ import annotations

import asyncio

import pytest

from broker.dataplane import (
    AppendEntry,
    FetchTarget,
    PartitionAppend,
    ReplicaManager,
    TransactionSupportedOperation,
)
from coordinator.transaction import TransactionCoordinator
from protocol import record_batch as rb
from protocol.errors import ErrorCode
from storage.engine import READ_COMMITTED, READ_UNCOMMITTED
from storage.memory import MemoryStorage
from tests.broker_defaults import PRODUCER_ID_EXPIRATION_MS
from tests.unit.coordinator.transaction.txn_helpers import Env, answered, begin, init, run_ready, txn_config

TID = "txn-a"
OPS = TransactionSupportedOperation
# Long enough never to run out in a test: a fetch that answers did so because of data.
LONG_WAIT_MS = 60_000


def batch(pid: int = -1, epoch: int = -1, seq: int = -1, *, transactional: bool = False, n: int = 2) -> bytes:
    records = [rb.Record(b"k%d" % i, b"v%d" % i, [], 1_700_000_000_000 + i) for i in range(n)]
    return rb.build_batch(
        records, producer_id=pid, producer_epoch=epoch, base_sequence=seq, transactional=transactional
    )


async def setup(env: Env | None = None) -> tuple[ReplicaManager, TransactionCoordinator, MemoryStorage]:
    env = env or Env()
    coordinator = await env.coordinator()
    storage = MemoryStorage(clock=env.clock, producer_id_expiration_ms=PRODUCER_ID_EXPIRATION_MS)
    await storage.create_topic("t", 2)
    return ReplicaManager(storage, coordinator, env.clock), coordinator, storage


@pytest.mark.parametrize(
    ("operation", "expected"),
    [(OPS.DEFAULT_ERROR, ErrorCode.INVALID_TXN_STATE), (OPS.GENERIC_ERROR_SUPPORTED, ErrorCode.TRANSACTION_ABORTABLE)],
)
async def test_a_transactional_batch_outside_the_transaction_is_refused_unwritten(
    operation: TransactionSupportedOperation, expected: ErrorCode
) -> None:
    rm, coordinator, storage = await setup()
    pid, epoch = await init(coordinator, TID)
    [outcome] = await rm.append_records(
        [AppendEntry("t", 0, batch(pid, epoch, 0, transactional=True))],
        acks=-1, transactional_id=TID, operation=operation,
    )
    assert (outcome.error, outcome.result) == (expected, None)
    assert storage.log("t", 0).log_end_offset == 0
    # Once the partition is in the transaction, the same batch is written.
    await begin(coordinator, TID, pid, epoch, ("t", 0))
    [outcome] = await rm.append_records(
        [AppendEntry("t", 0, batch(pid, epoch, 0, transactional=True))],
        acks=-1, transactional_id=TID, operation=operation,
    )
    assert outcome.error == ErrorCode.NONE
    assert outcome.result is not None
    assert (outcome.result.base_offset, outcome.result.last_offset) == (0, 1)
    assert storage.log("t", 0).log_end_offset == 2


async def test_transaction_version_2_adds_the_partition_itself() -> None:
    rm, coordinator, storage = await setup()
    pid, epoch = await init(coordinator, TID)
    outcomes = await rm.append_records(
        [AppendEntry("t", 1, batch(pid, epoch, 0, transactional=True))],
        acks=-1, transactional_id=TID, operation=OPS.ADD_PARTITION,
    )
    assert [o.error for o in outcomes] == [ErrorCode.NONE]
    code, description = coordinator.describe(TID)
    assert code == ErrorCode.NONE
    assert description is not None
    assert description.partitions == frozenset({("t", 1)})
    assert storage.log("t", 1).log_end_offset == 2


async def test_a_fenced_producer_is_told_invalid_producer_epoch() -> None:
    rm, coordinator, storage = await setup()
    pid, old_epoch = await init(coordinator, TID)
    _, new_epoch = await init(coordinator, TID, producer_id=pid, producer_epoch=old_epoch)
    assert new_epoch > old_epoch
    [outcome] = await rm.append_records(
        [AppendEntry("t", 0, batch(pid, old_epoch, 0, transactional=True))],
        acks=1, transactional_id=TID, operation=OPS.GENERIC_ERROR_SUPPORTED,
    )
    assert outcome.error == ErrorCode.INVALID_PRODUCER_EPOCH
    assert storage.log("t", 0).log_end_offset == 0


async def test_a_refused_batch_names_its_error_and_the_others_are_written() -> None:
    rm, _, storage = await setup()
    good, bad = batch(), bytearray(batch())
    bad[-1] ^= 0xFF  # the CRC no longer matches
    outcomes = await rm.append_records(
        [AppendEntry("t", 0, good), AppendEntry("t", 0, bytes(bad)), AppendEntry("t", 5, good)],
        acks=-1, transactional_id=None, operation=OPS.ADD_PARTITION,
    )
    assert [o.error for o in outcomes] == [
        ErrorCode.NONE, ErrorCode.CORRUPT_MESSAGE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    ]
    assert [o.log_missing for o in outcomes] == [False, False, True]
    assert storage.log("t", 0).log_end_offset == 2


async def test_a_parked_fetch_is_answered_by_an_append() -> None:
    rm, _, storage = await setup()
    info = storage.describe_topic("t")
    fetch = asyncio.ensure_future(
        rm.fetch(
            [FetchTarget(info, 0, 0, 1_000_000)],
            by_id=False, isolation_level=READ_UNCOMMITTED, max_bytes=1_000_000, min_bytes=1,
            max_wait_ms=LONG_WAIT_MS,
        )
    )
    for _ in range(1_000):  # loop turns, not time: the fetch parks without the clock moving
        if storage.appended.waiting("t", 0):
            break
        await asyncio.sleep(0)
    assert storage.appended.waiting("t", 0) == 1
    assert not fetch.done()
    await rm.append_records([AppendEntry("t", 0, batch())], acks=-1, transactional_id=None,
                            operation=OPS.ADD_PARTITION)
    [answer] = await asyncio.wait_for(fetch, LONG_WAIT_MS / 1000)
    assert answer.error == ErrorCode.NONE
    assert (answer.high_watermark, answer.log_start_offset) == (2, 0)
    assert [h.base_offset for _, h in rb.iter_batches(answer.records)] == [0]
    assert answer.aborted_transactions is None


async def test_a_refused_partition_answers_the_fetch_at_once_with_the_others_read() -> None:
    rm, _, storage = await setup()
    await rm.append_records([AppendEntry("t", 1, batch())], acks=-1, transactional_id=None,
                            operation=OPS.ADD_PARTITION)
    info = storage.describe_topic("t")
    answers = await rm.fetch(
        [FetchTarget(info, 0, 0, 1_000_000, ErrorCode.TOPIC_AUTHORIZATION_FAILED), FetchTarget(info, 1, 0, 1_000_000)],
        by_id=False, isolation_level=READ_COMMITTED, max_bytes=1_000_000, min_bytes=1_000_000,
        max_wait_ms=LONG_WAIT_MS,
    )
    assert [(a.error, a.high_watermark) for a in answers] == [(ErrorCode.TOPIC_AUTHORIZATION_FAILED, -1), (ErrorCode.NONE, 2)]
    assert answers[1].last_stable_offset == 2
    assert answers[1].aborted_transactions == []


async def test_delete_records_refusals_and_the_new_low_watermark() -> None:
    rm, _, storage = await setup()
    await storage.create_topic("compacted", 1, {"cleanup.policy": "compact"})
    await storage.create_topic("__consumer_offsets", 1)
    await rm.append_records([AppendEntry("t", 0, batch(n=5))], acks=-1, transactional_id=None,
                            operation=OPS.ADD_PARTITION)
    assert await rm.delete_records("__consumer_offsets", 0, 0) == (-1, ErrorCode.INVALID_TOPIC_EXCEPTION)
    assert await rm.delete_records("compacted", 0, 0) == (-1, ErrorCode.POLICY_VIOLATION)
    assert await rm.delete_records("t", 0, -2) == (-1, ErrorCode.OFFSET_OUT_OF_RANGE)
    assert await rm.delete_records("t", 1, 3) == (-1, ErrorCode.OFFSET_OUT_OF_RANGE)
    assert await rm.delete_records("gone", 0, 0) == (-1, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    assert await rm.delete_records("t", 0, 3) == (3, ErrorCode.NONE)
    assert await rm.delete_records("t", 0, -1) == (5, ErrorCode.NONE)
    assert storage.log("t", 0).log_start_offset == 5


async def test_a_producers_pipelined_batches_wait_behind_its_implicit_add() -> None:
    rm, coordinator, storage = await setup()
    pid, epoch = await init(coordinator, TID)

    def produce(seq: int) -> asyncio.Future[list[PartitionAppend]]:
        return asyncio.ensure_future(rm.append_records(
            [AppendEntry("t", 0, batch(pid, epoch, seq, transactional=True))],
            acks=1, transactional_id=TID, operation=OPS.ADD_PARTITION,
        ))

    # Both ask to open the transaction at t-0; the second is sent while the first's add is
    # still being written, and must not reach the log first (OUT_OF_ORDER_SEQUENCE_NUMBER).
    first, second = produce(0), produce(2)
    [[a], [b]] = await asyncio.gather(first, second)
    assert (a.error, b.error) == (ErrorCode.NONE, ErrorCode.NONE)
    assert a.result is not None and b.result is not None
    assert (a.result.base_offset, b.result.base_offset) == (0, 2)
    assert storage.log("t", 0).log_end_offset == 4


async def test_not_enough_replicas_while_the_answered_add_is_written_again_then_the_batch_once() -> None:
    """KIP-890 part 1 after an AddPartitionsToTxn answered before it was durable, whose
    append to `__transaction_state` fails twice: the leader answers the Produce
    NOT_ENOUGH_REPLICAS (retriable, as Kafka's AddPartitionsToTxnManager translates the
    coordinator's CONCURRENT_TRANSACTIONS) until the coordinator has written the add again,
    then appends the resent batch, once."""
    env = Env(config=txn_config(num_partitions=4, retry_backoff_ms=100, concurrent_wait_ms=0))
    rm, coordinator, storage = await setup(env)
    pid, epoch = await init(coordinator, TID)
    env.log.fail_next = 2
    assert await answered(
        coordinator.add_partitions(TID, pid, epoch, [("t", 0)], answer_before_durable=True)
    ) == ErrorCode.NONE
    await run_ready()

    async def produce() -> PartitionAppend:
        [outcome] = await rm.append_records(
            [AppendEntry("t", 0, batch(pid, epoch, 0, transactional=True))],
            acks=-1, transactional_id=TID, operation=OPS.DEFAULT_ERROR,
        )
        return outcome

    for _ in range(2):
        refused = await answered(produce())
        assert (refused.error, refused.result) == (ErrorCode.NOT_ENOUGH_REPLICAS, None)
        assert storage.log("t", 0).log_end_offset == 0
        env.clock.advance(100)
        await run_ready()
    assert env.log.fail_next == 0
    written = await answered(produce())
    assert written.error == ErrorCode.NONE
    assert written.result is not None
    assert (written.result.base_offset, written.result.last_offset) == (0, 1)
    # A resend of the batch (a lost answer) is a duplicate: answered with the same offsets,
    # not appended again (Kafka's idempotent producer state).
    again = await answered(produce())
    assert (again.error, again.result) == (ErrorCode.NONE, written.result)
    assert storage.log("t", 0).log_end_offset == 2
