"""A synchronous Kafka client on odradek/wire.py's connection.

It exists for the requests no Python client sends: KIP-939's InitProducerId v6 (Enable2Pc,
KeepPreparedTxn) and a transaction produced, then ended, under a (producer id, epoch) the
caller holds. Connections are per broker node: Metadata names partition leaders,
FindCoordinator the group and transaction coordinators."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol, TypeVar

from odradek.wire import WireConnection, error_name, parse_host_port
from protocol.errors import ErrorCode
from protocol.messages.find_coordinator_request import FindCoordinatorRequest
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic

METADATA = (3, 9)
FIND_COORDINATOR = (10, 3)
GROUP_KEY, TRANSACTION_KEY = 0, 1

# Looked up again before the retry (Kafka's InvalidMetadataException and its kin).
STALE_ROUTE = frozenset(
    {
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        ErrorCode.NOT_COORDINATOR,
        ErrorCode.NOT_LEADER_OR_FOLLOWER,
        ErrorCode.LEADER_NOT_AVAILABLE,
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        ErrorCode.REQUEST_TIMED_OUT,
        ErrorCode.KAFKA_STORAGE_ERROR,
    }
)
# Errors a request is retried on (Kafka's RetriableException ones). NOT_ENOUGH_REPLICAS is
# also what a partition leader answers a transactional Produce whose KIP-890 verification
# the transaction coordinator could not settle yet (Kafka's AddPartitionsToTxnManager turns
# CONCURRENT_TRANSACTIONS, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR, ... into it).
RETRIABLE = STALE_ROUTE | {
    # Retried where they were sent.
    ErrorCode.CONCURRENT_TRANSACTIONS,
    ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
    ErrorCode.NOT_ENOUGH_REPLICAS,
    ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
}
# How long a request is retried: the Java producer's delivery.timeout.ms default (120 s),
# within which it keeps resending a batch answered a retriable error (librdkafka's
# message.timeout.ms, alias delivery.timeout.ms, is longer still). A loaded machine may take
# seconds to settle a transaction coordinator; giving up sooner fails a healthy write.
DELIVERY_TIMEOUT_S = 120.0
# Between retries: from RETRY_BACKOFF_S, doubled each time up to RETRY_BACKOFF_MAX_S
# (Kafka's retry.backoff.max.ms default, KIP-580). The first is short: a busy transactional
# id (CONCURRENT_TRANSACTIONS) is typically settled within milliseconds.
RETRY_BACKOFF_S = 0.01
RETRY_BACKOFF_MAX_S = 1.0

T = TypeVar("T")


class KafkaWireError(RuntimeError):
    def __init__(self, code: int, what: str) -> None:
        self.code = code
        super().__init__(f"{what}: {error_name(code)}")


class RetryClock(Protocol):
    """The time `Cluster.retrying` waits by (injected: tests run its deadline without sleeping)."""

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemRetryClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class Cluster:
    """Connections to the brokers of one cluster, opened on demand. `timeout` bounds each
    request on its connection; `delivery_timeout` how long a request is retried."""

    def __init__(
        self,
        bootstrap_servers: str,
        timeout: float = 30.0,
        client_id: str = "odradek-sink",
        *,
        delivery_timeout: float = DELIVERY_TIMEOUT_S,
        clock: RetryClock | None = None,
    ) -> None:
        self.timeout = timeout
        self.delivery_timeout = delivery_timeout
        self.clock: RetryClock = clock or SystemRetryClock()
        self.client_id = client_id
        self.bootstrap = [parse_host_port(s) for s in bootstrap_servers.split(",") if s.strip()]
        self._nodes: dict[int, tuple[str, int]] = {}
        self._connections: dict[tuple[str, int], WireConnection] = {}
        self._leaders: dict[tuple[str, int], int] = {}
        self._coordinators: dict[tuple[str, int], int] = {}
        self.partition_counts: dict[str, int] = {}

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for conn in self._connections.values():
            conn.close()
        self._connections.clear()

    def _connect(self, address: tuple[str, int]) -> WireConnection:
        conn = self._connections.get(address)
        if conn is None:
            conn = self._connections[address] = WireConnection(
                *address, self.timeout, client_id=self.client_id, nodelay=True
            )
        return conn

    def any_node(self) -> WireConnection:
        for address in [*self._connections, *self.bootstrap]:
            try:
                return self._connect(address)
            except OSError:
                continue
        raise ConnectionError(f"no broker of {self.bootstrap} answers")

    def node(self, node_id: int) -> WireConnection:
        return self._connect(self._nodes[node_id])

    def drop(self, conn: WireConnection) -> None:
        """Forget a connection that failed, and the routes learnt through it."""
        for address, known in list(self._connections.items()):
            if known is conn:
                del self._connections[address]
        conn.close()
        self._forget_routes()

    def _forget_routes(self) -> None:
        self._leaders.clear()
        self._coordinators.clear()

    def refresh(self, topics: list[str]) -> None:
        resp = self.any_node().call(
            *METADATA,
            MetadataRequest(topics=[MetadataRequestTopic(name=t) for t in topics], allow_auto_topic_creation=False),
        )
        for b in resp.brokers:
            self._nodes[b.node_id] = (b.host, b.port)
        for t in resp.topics:
            if t.error_code:
                raise KafkaWireError(t.error_code, f"metadata of topic {t.name}")
            self.partition_counts[t.name] = len(t.partitions)
            for p in t.partitions:
                self._leaders[(t.name, p.partition_index)] = p.leader_id

    def leader(self, topic: str, partition: int) -> int:
        if (topic, partition) not in self._leaders:
            self.refresh([topic])
        if (topic, partition) not in self._leaders:
            raise KafkaWireError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"{topic}-{partition}")
        return self._leaders[(topic, partition)]

    def partitions(self, topic: str) -> int:
        if topic not in self.partition_counts:
            self.refresh([topic])
        return self.partition_counts[topic]

    def coordinator(self, key: str, key_type: int) -> WireConnection:
        known = self._coordinators.get((key, key_type))
        if known is not None:
            return self.node(known)
        resp = self.any_node().call(*FIND_COORDINATOR, FindCoordinatorRequest(key=key, key_type=key_type))
        if resp.error_code:
            raise KafkaWireError(resp.error_code, f"FindCoordinator({key})")
        self._nodes[resp.node_id] = (resp.host, resp.port)
        self._coordinators[(key, key_type)] = resp.node_id
        return self.node(resp.node_id)

    def retrying(self, attempt: Callable[[], T], what: str) -> T:
        """Runs `attempt` until it stops raising a retriable error, for at most
        `delivery_timeout` (time, not a count of attempts), backing off between attempts."""
        clock = self.clock
        deadline = clock.monotonic() + self.delivery_timeout
        delay = RETRY_BACKOFF_S
        while True:
            try:
                return attempt()
            except KafkaWireError as exc:
                if exc.code not in RETRIABLE or clock.monotonic() >= deadline:
                    raise
                if exc.code in STALE_ROUTE:
                    self._forget_routes()
            except OSError as exc:
                if clock.monotonic() >= deadline:
                    raise ConnectionError(f"{what}: {exc}") from exc
                self.close()
                self._forget_routes()
            clock.sleep(min(delay, max(deadline - clock.monotonic(), 0.0)))
            delay = min(delay * 2, RETRY_BACKOFF_MAX_S)


def check(code: int, what: str) -> None:
    if code != ErrorCode.NONE:
        raise KafkaWireError(code, what)
