"""Failover times of a cluster under load: the leader of a partition killed (SIGKILL) or
paused (SIGSTOP), again and again, each time measured two ways:

- to the first acknowledged record on a moved partition: the first delivery report, for a
  partition the victim led, of a record produced after the fault (every record carries its
  send time), so an acknowledgement the victim sent just before it died cannot count;
- to new leaders in Metadata: until every survivor, asked on a connection of its own, names
  a leader other than the victim for every partition the victim led.

Between faults the victim comes back (restarted after a kill, SIGCONT after a pause: it
finds its sessions ended, drops its partitions and joins again), and the next fault waits
until the controller has given it its share again and every partition acknowledges."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaTimeoutError
from confluent_kafka import Producer

from bench.clients import REQUEST_TIMEOUT_MS, WorkloadError, producer_config, stamp_of, stamped
from bench.cluster_nodes import MetadataPoller, leaders
from odradek.testing import OdradekCluster

POLL_SECONDS = 0.02
# aiokafka's load per partition: a pure-Python client costs CPU on the cores the cluster runs on.
AIO_RATE = 20


@dataclass
class Failover:
    kind: str  # "kill" or "sigstop"
    victim: int
    was_controller: bool
    moved: list[int]
    to_ack: float  # confluent-kafka's
    to_ack_aiokafka: float
    to_metadata: float


class Acks:
    """The delivery reports of a load: each partition's last acknowledgement and, since
    `mark`, its first acknowledged record sent after the mark (times in monotonic ns)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.last_ack: dict[int, int] = {}
        self.first_after: dict[int, int] = {}
        self.since = 0
        self.errors: list[str] = []

    def delivered(self, partition: int, sent_ns: int) -> None:
        now = time.monotonic_ns()
        with self.lock:
            self.last_ack[partition] = now
            if partition not in self.first_after and sent_ns >= self.since:
                self.first_after[partition] = now

    def failed(self, error: str) -> None:
        with self.lock:
            self.errors.append(error)

    def mark(self) -> int:
        """From now on, record each partition's first acknowledged record sent after now."""
        now = time.monotonic_ns()
        with self.lock:
            self.since = now
            self.first_after = {}
        return now

    def acked_since(self, when_ns: int) -> set[int]:
        with self.lock:
            return {p for p, t in self.last_ack.items() if t >= when_ns}

    def first_ack(self, partitions: list[int]) -> int | None:
        with self.lock:
            found = [self.first_after[p] for p in partitions if p in self.first_after]
        return min(found) if found else None


class Load(Acks):
    """An idempotent acks=all confluent-kafka producer (linger 0) sending `rate` records per
    second per partition, round robin, on a thread of its own."""

    def __init__(self, bootstrap: str, topic: str, partitions: int, rate: int, size: int = 100) -> None:
        super().__init__()
        self.topic = topic
        self.partitions = partitions
        self.rate = rate * partitions
        self.size = size
        self.producer = Producer(producer_config(bootstrap, "all", True, **{
            "linger.ms": 0, "message.timeout.ms": 120_000, "delivery.report.only.error": False,
        }))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="failover-load", daemon=True)

    def _delivered(self, err: Any, msg: Any) -> None:
        if err is not None:
            self.failed(err.str())
        else:
            self.delivered(msg.partition(), stamp_of(msg.value()))

    def _run(self) -> None:
        start = time.monotonic()
        i = 0
        while not self._stop.is_set():
            delay = start + i / self.rate - time.monotonic()
            if delay > 0:
                self.producer.poll(delay)
            try:
                self.producer.produce(self.topic, stamped(self.size), partition=i % self.partitions,
                                      on_delivery=self._delivered)
            except BufferError:
                self.producer.poll(0.01)
                continue
            self.producer.poll(0)
            i += 1

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.producer.flush(30)


class AioLoad(Acks):
    """The same load from aiokafka (pure Python, idempotent, acks=all, linger 0), at a lower
    rate, on a thread running its own event loop. Unlike librdkafka, which looks for a
    partition's new leader on a one-second timer, aiokafka asks Metadata again
    `retry_backoff_ms` (100) after a failed request: its figure is closer to the cluster's."""

    def __init__(self, bootstrap: str, topic: str, partitions: int, rate: int, size: int = 100) -> None:
        super().__init__()
        self.bootstrap = bootstrap
        self.topic = topic
        self.partitions = partitions
        self.rate = rate * partitions
        self.size = size
        self._stop = threading.Event()
        self._started = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), name="failover-aio", daemon=True)

    async def _run(self) -> None:
        producer = AIOKafkaProducer(
            bootstrap_servers=self.bootstrap, acks="all", enable_idempotence=True, linger_ms=0,
            request_timeout_ms=REQUEST_TIMEOUT_MS,
        )
        await producer.start()
        self._started.set()
        sends: set[asyncio.Task[None]] = set()
        try:
            start = time.monotonic()
            i = 0
            while not self._stop.is_set():
                delay = start + i / self.rate - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                # A task per record: `send` waits while its partition's batch is stuck on a
                # paused leader, and must not hold up the other partitions meanwhile.
                task = asyncio.create_task(self._send(producer, i % self.partitions))
                sends.add(task)
                task.add_done_callback(sends.discard)
                i += 1
            await asyncio.gather(*sends, return_exceptions=True)
            await producer.flush()
        finally:
            await producer.stop()

    async def _send(self, producer: AIOKafkaProducer, partition: int) -> None:
        value = stamped(self.size)
        try:
            delivery = await producer.send(self.topic, value, partition=partition)
        except KafkaTimeoutError:
            return  # no room for it within the request timeout: never sent, not a lost record
        try:
            await delivery
        except Exception as exc:
            self.failed(repr(exc))
            return
        self.delivered(partition, stamp_of(value))

    def start(self) -> None:
        self._thread.start()
        if not self._started.wait(30):
            raise WorkloadError("aiokafka producer did not start")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(30)


def _wait(what: str, ready: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise WorkloadError(f"{what} not seen in {timeout:.0f}s")
        time.sleep(POLL_SECONDS)


def wait_balanced(
    cluster: OdradekCluster, topic: str, partitions: int, loads: list[Acks], timeout: float
) -> dict[int, int]:
    """Until every broker lists all brokers and leads its even share of the topic, and
    every partition acknowledged a record of every load since; returns the leaders."""
    nodes = sorted(cluster.brokers)
    share = partitions // len(nodes)
    found: dict[int, int] = {}
    pollers = [MetadataPoller(cluster.broker(n).bootstrap, topic) for n in nodes]

    def balanced() -> bool:
        views = [p.leaders() for p in pollers]
        first = views[0][0]
        if any(v[0] != first or v[1] != set(nodes) for v in views) or len(first) != partitions:
            return False
        counts = {n: sum(1 for leader in first.values() if leader == n) for n in nodes}
        if any(c < share for c in counts.values()):
            return False
        found.clear()
        found.update(first)
        return True

    try:
        _wait("balanced leaders", balanced, timeout)
    finally:
        for poller in pollers:
            poller.close()
    since = time.monotonic_ns()
    _wait("records acknowledged on every partition",
          lambda: all(len(load.acked_since(since)) == partitions for load in loads), timeout)
    return dict(found)


def one_failover(
    cluster: OdradekCluster, topic: str, partitions: int, load: Load, aio: AioLoad, kind: str, partition: int,
    timeout: float,
) -> Failover:
    """Kill or pause the leader of `partition`, measure, bring it back."""
    current = wait_balanced(cluster, topic, partitions, [load, aio], timeout)
    victim = current[partition]
    _, _, controller = leaders(cluster.broker(victim).bootstrap, topic)
    moved = sorted(p for p, leader in current.items() if leader == victim)
    # Connected before the fault: the polls then cost the survivors a request each, no more.
    survivors = [MetadataPoller(cluster.broker(n).bootstrap, topic) for n in sorted(cluster.brokers) if n != victim]
    for poller in survivors:
        poller.leaders()
    broker = cluster.broker(victim)
    started = load.mark()
    aio.mark()
    if kind == "kill":
        broker.kill()
    else:
        broker.pause()
    try:
        moved_at: int | None = None
        ack_at: int | None = None
        aio_ack_at: int | None = None
        deadline = time.monotonic() + timeout
        while moved_at is None or ack_at is None or aio_ack_at is None:
            if time.monotonic() > deadline:
                missing = [what for what, at in [("new leaders", moved_at), ("confluent-kafka ack", ack_at),
                                                 ("aiokafka ack", aio_ack_at)] if at is None]
                raise WorkloadError(f"{kind} of node {victim}: no {', '.join(missing)} in {timeout:.0f}s")
            if moved_at is None:
                views = [poller.leaders()[0] for poller in survivors]
                now = time.monotonic_ns()
                if all(all(v.get(p, -1) not in (-1, victim) for p in moved) for v in views):
                    moved_at = now
            if ack_at is None:
                ack_at = load.first_ack(moved)
            if aio_ack_at is None:
                aio_ack_at = aio.first_ack(moved)
            time.sleep(POLL_SECONDS)
    finally:
        for poller in survivors:
            poller.close()
        if kind == "kill":
            broker.start(60)
        else:
            broker.resume()
    return Failover(kind, victim, controller == victim, moved, (ack_at - started) / 1e9,
                    (aio_ack_at - started) / 1e9, (moved_at - started) / 1e9)


@dataclass
class FailoverRun:
    failovers: list[Failover] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    stopped: str | None = None  # why the row stopped before its count


def failovers(
    cluster: OdradekCluster, topic: str, partitions: int, kind: str, count: int, timeout: float,
    rate: int = 100, log: Any = None,
) -> FailoverRun:
    """`count` faults of `kind` in a row on a topic the caller created, each on the leader
    of the next partition (so the victims rotate over the brokers)."""
    run = FailoverRun()
    # aiokafka logs every retried NOT_LEADER_OR_FOLLOWER as a warning: expected here.
    logging.getLogger("aiokafka").setLevel(logging.ERROR)
    load = Load(cluster.bootstrap, topic, partitions, rate)
    aio = AioLoad(cluster.bootstrap, topic, partitions, AIO_RATE)
    load.start()
    aio.start()
    try:
        for i in range(count):
            try:
                f = one_failover(cluster, topic, partitions, load, aio, kind, i % partitions, timeout)
            except WorkloadError as exc:  # the faults measured so far still count
                run.stopped = f"fault {i + 1}: {exc}"
                if log is not None:
                    log(f"[cluster] {kind} {i + 1}/{count}: {exc}")
                return run
            run.failovers.append(f)
            if log is not None:
                log(f"[cluster] {kind} {i + 1}/{count}: node {f.victim}"
                    f"{' (controller)' if f.was_controller else ''}, {len(f.moved)} partitions: "
                    f"first ack {f.to_ack:.3f}s (aiokafka {f.to_ack_aiokafka:.3f}s), metadata {f.to_metadata:.3f}s")
        wait_balanced(cluster, topic, partitions, [load, aio], timeout)
    finally:
        load.close()
        aio.close()
        run.errors = list(load.errors) + list(aio.errors)
    return run
