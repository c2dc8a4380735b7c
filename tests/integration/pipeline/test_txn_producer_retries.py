"""The sink's transactional producer (pipeline/txn_producer.py, no Spark) against a real broker
whose transaction coordinator cannot make an AddPartitionsToTxn durable for a while: the
add is answered before its append (TransactionCoordinator.add_partitions), the coordinator
appends it again, and meanwhile the leader answers the Produce NOT_ENOUGH_REPLICAS (KIP-890
verification, as Kafka's AddPartitionsToTxnManager). The producer keeps retrying (Kafka's
delivery.timeout.ms) and its records land exactly once.

The broker runs in this process, on a thread of its own, so that its `__transaction_state`
log can refuse appends (NOT_ENOUGH_REPLICAS, as a log whose in-sync replicas shrank) while
the test says so: the refusal lasts until the producer was seen retrying."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from broker.config import Config
from broker.server import Server
from coordinator.log import CoordinatorLog, CoordinatorLogError, LogRecord, Producer, Record
from odradek.testing import free_port
from pipeline.txn_producer import TxnProducer
from pipeline.wire import Cluster
from protocol.errors import ErrorCode
from tests.integration.pipeline.kafka_data import create_topic, read_committed
from tests.polling import wait_until

T = TypeVar("T")


class RefusingLog:
    """A coordinator's log (coordinator/log.py) that refuses every append while `refusing`."""

    def __init__(self, inner: CoordinatorLog) -> None:
        self.inner = inner
        self.refusing = threading.Event()
        self.refused = 0

    @property
    def num_partitions(self) -> int:
        return self.inner.num_partitions

    async def ensure_topic(self) -> None:
        await self.inner.ensure_topic()

    async def append(
        self, partition: int, records: list[Record], producer: Producer | None = None, *, after_earlier_writes: bool = False
    ) -> int:
        if self.refusing.is_set():
            self.refused += 1
            raise CoordinatorLogError(ErrorCode.NOT_ENOUGH_REPLICAS)
        return await self.inner.append(partition, records, producer, after_earlier_writes=after_earlier_writes)

    async def replay(self, partition: int) -> list[LogRecord]:
        return await self.inner.replay(partition)


class InProcessBroker:
    def __init__(self, data_dir: Path) -> None:
        self.port = free_port()
        self.server = Server(Config({
            "listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
            "log.dirs": str(data_dir),
            "transaction.two.phase.commit.enable": "true",
        }))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="in-process-broker", daemon=True)
        self.thread.start()
        self.run(self.server.start())
        services = self.server.services
        assert services is not None
        transactions: Any = services.transactions
        self.transaction_log = RefusingLog(transactions.state.log_store)
        transactions.state.log_store = transactions.log_store = self.transaction_log

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def run(self, coro: Awaitable[T]) -> T:
        async def wrapped() -> T:
            return await coro

        return asyncio.run_coroutine_threadsafe(wrapped(), self.loop).result(60)

    def close(self) -> None:
        try:
            self.run(self.server.stop())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(30)
            self.loop.close()


class CountingClock:
    """Real time; counts the client's waits between retries."""

    def __init__(self) -> None:
        self.retries = 0

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        self.retries += 1
        time.sleep(seconds)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[InProcessBroker]:
    b = InProcessBroker(tmp_path / "data")
    yield b
    b.close()


def test_produce_refused_while_the_add_is_not_durable_is_retried_and_lands_once(broker: InProcessBroker) -> None:
    create_topic(broker.bootstrap, "out", 1)
    clock = CountingClock()
    rows = [(b"k%d" % i, b"v%d" % i) for i in range(3)]
    with Cluster(broker.bootstrap, clock=clock) as cluster:
        producer = TxnProducer(cluster, "sink-0")
        assert producer.init(two_phase=True) == (-1, -1)
        for key, value in rows:
            producer.append(("out", 0, key, value, []))
        log = broker.transaction_log
        log.refusing.set()
        retried_before = clock.retries
        failures: list[BaseException] = []

        def flush() -> None:
            try:
                producer.flush()
            except BaseException as exc:
                failures.append(exc)

        flushing = threading.Thread(target=flush, name="flush")
        flushing.start()
        # The add was answered and its append refused; each Produce is answered
        # NOT_ENOUGH_REPLICAS once the leader's verification gave up waiting for it.
        wait_until(
            lambda: failures or (clock.retries >= retried_before + 2 and log.refused >= 1),
            timeout=30,
            what="the Produce retried",
        )
        assert failures == []
        assert flushing.is_alive()
        log.refusing.clear()
        flushing.join(60)
        assert not flushing.is_alive()
        assert failures == []
        producer.end(commit=True)
    assert read_committed(broker.bootstrap, "out", 1) == [(0, i, k, v) for i, (k, v) in enumerate(rows)]
