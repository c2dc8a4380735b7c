"""Operating a cluster under idempotent produce load: a rolling restart of all three
brokers with SIGTERM (Kafka's controlled shutdown, one at a time) and PostgreSQL stopped
(`pg_ctl stop -m fast` and `-m immediate`, a crash) and started again. The producer sees no
error beyond the retriable ones librdkafka retries by itself, and every acknowledged record
is read back exactly once, in order. The times measured are printed (pytest -s) and
reported in docs/cluster.md."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import AdminClient

from odradek.postgres_server import PostgresServer, running_postgres
from odradek.testing import OdradekCluster
from tests.integration.cluster.conftest import HEARTBEAT_INTERVAL_MS, SESSION_TIMEOUT_MS
from tests.integration.cluster.test_failover import Acks, consume_all, create_topic, wait_for_leaders
from tests.names import unique
from tests.polling import wait_until

PARTITIONS = 6
BROKERS = {1, 2, 3}


class Load:
    """An idempotent producer writing round-robin over the partitions on a thread of its
    own until stopped; the errors librdkafka reports besides delivery failures are kept
    (a broker going away is one, and not fatal)."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.acks = Acks()
        self.client_errors: list[KafkaError] = []
        self.producer = Producer({**_settings(bootstrap), "error_cb": self.client_errors.append})
        self.topic = topic
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="load")

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            self.producer.produce(self.topic, b"v%d" % i, partition=i % PARTITIONS, on_delivery=self.acks)
            i += 1
            self.producer.poll(0)
            if i % 50 == 0:
                time.sleep(0.01)  # a steady rate, not a busy loop
        self.producer.flush(120)

    def __enter__(self) -> Load:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(150)

    def more(self, n: int, what: str, timeout: float = 60) -> float:
        """Waits for `n` more acknowledgements; the seconds it took."""
        start, target = time.monotonic(), self.acks.count() + n
        wait_until(lambda: self.acks.count() >= target, timeout=timeout, what=what)
        return time.monotonic() - start

    def check(self, bootstrap: str) -> int:
        """No delivery failed, no fatal client error, and the topic holds exactly what was
        acknowledged, partition by partition, in order. The count."""
        assert self.acks.errors == []
        assert [e for e in self.client_errors if e.fatal()] == []
        total = self.acks.count()
        got = consume_all(bootstrap, self.topic, PARTITIONS, total)
        for part in range(PARTITIONS):
            assert got[part] == self.acks.acked.get(part, []), f"partition {part}"
        return total


def _settings(bootstrap: str) -> dict[str, object]:
    return {
        "bootstrap.servers": bootstrap,
        "enable.idempotence": True,
        "acks": "all",
        "linger.ms": 5,
        # Long enough for any failure here: a record is never given up on (that would be
        # an error the application sees), only retried.
        "message.timeout.ms": 120_000,
        "topic.metadata.refresh.interval.ms": 1000,
    }


def test_rolling_restart_with_sigterm_under_load_loses_and_duplicates_nothing(cluster: OdradekCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topic = unique("rolling")
    create_topic(admin, topic, PARTITIONS)
    wait_for_leaders(admin, topic, PARTITIONS, BROKERS)
    handovers: list[float] = []
    with Load(cluster.bootstrap, topic) as load:
        load.more(300, "acknowledged records before the restarts")
        for node_id in sorted(BROKERS):
            others = BROKERS - {node_id}
            started = time.monotonic()
            assert cluster.broker(node_id).stop() == 0
            handovers.append(time.monotonic() - started)
            # Every partition was handed over before the broker stopped (controlled shutdown).
            assert "controlled shutdown:" not in cluster.broker(node_id).log()
            others_admin = AdminClient({"bootstrap.servers": ",".join(cluster.broker(n).bootstrap for n in others)})
            wait_for_leaders(others_admin, topic, PARTITIONS, others)
            load.more(200, f"acknowledged records with broker {node_id} stopped")
            cluster.broker(node_id).start()
            # Back, it is given its share of leaders again before the next one stops.
            wait_until(lambda n=node_id: n in wait_for_leaders(admin, topic, PARTITIONS, BROKERS).values(),
                       timeout=30, what=f"broker {node_id} leading again")
            load.more(200, f"acknowledged records after broker {node_id} came back")
    total = load.check(cluster.bootstrap)
    print(f"rolling restart: {total} records, SIGTERM to exit per broker "
          f"{', '.join(f'{s:.2f}s' for s in handovers)}")


@pytest.fixture
def private_postgres() -> Iterator[PostgresServer]:
    """A server of this test's own: the session's is shared by other tests, and this one
    stops it."""
    with running_postgres() as server:
        yield server


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_postgres_restarted_under_idempotent_load_loses_and_duplicates_nothing(
    private_postgres: PostgresServer, tmp_path: Path, mode: str
) -> None:
    nodes = OdradekCluster(private_postgres.create_schema("ops"), tmp_path, overrides={
        "broker.session.timeout.ms": str(SESSION_TIMEOUT_MS),
        "broker.heartbeat.interval.ms": str(HEARTBEAT_INTERVAL_MS),
    })
    with nodes:
        admin = AdminClient({"bootstrap.servers": nodes.bootstrap})
        topic = unique("pgrestart")
        create_topic(admin, topic, PARTITIONS)
        wait_for_leaders(admin, topic, PARTITIONS, BROKERS)
        with Load(nodes.bootstrap, topic) as load:
            load.more(300, "acknowledged records before PostgreSQL stops")
            marks = {n: b.log_size() for n, b in nodes.brokers.items()}
            private_postgres.stop(mode)
            stopped = time.monotonic()
            # Down until every broker noticed twice (two membership passes failed): past a
            # heartbeat interval, with the brokers' reconnects failing meanwhile.
            wait_until(lambda: all(nodes.broker(n).log_since(marks[n]).count("cluster pass failed") >= 2
                                   for n in BROKERS),
                       timeout=30, what="every broker seeing PostgreSQL gone")
            down = time.monotonic() - stopped
            private_postgres.restart()
            back = load.more(1, "the first acknowledgement after PostgreSQL is back", timeout=90)
            wait_for_leaders(admin, topic, PARTITIONS, BROKERS)
            load.more(300, "acknowledged records after PostgreSQL is back", timeout=90)
            assert all(b.alive for b in nodes.brokers.values())
        total = load.check(nodes.bootstrap)
    print(f"PostgreSQL stop -m {mode}: down {down:.2f}s, first ack {back:.2f}s after its restart, {total} records")
