"""The clusters of the cluster rows (docs/cluster.md): one private PostgreSQL
(odradek/postgres_server.py, the same settings as the `odradek-pg` column's) and, over it,
clusters of 1, 2 or 3 odradek broker processes (`odradek.testing.OdradekCluster`), each in
a schema of its own so that none sees another's brokers; and the one Metadata read the
rows need, on a connection of their own (odradek/wire.py) to a broker they choose."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.brokers import RECYCLED_WAL_MB
from bench.cpu import TreeCpu, TreeWait, process_cpu, runqueue_wait
from odradek.postgres_server import PostgresServer
from odradek.testing import OdradekCluster
from odradek.wire import WireConnection, parse_host_port
from protocol.messages.metadata_request import MetadataRequest, MetadataRequestTopic

METADATA = 3
METADATA_VERSION = 12
# Several clusters share the server at once; each broker keeps a pool of connections. WAL
# segments are kept for reuse as for the `odradek-pg` column (bench/brokers.py).
POSTGRES_SETTINGS = {"shared_buffers": "32MB", "max_connections": "200", "min_wal_size": "2GB", "max_wal_size": "4GB"}


class ClusterSet:
    """A private PostgreSQL and the clusters started over it; `close` stops them all."""

    def __init__(self, overrides: dict[str, str] | None = None) -> None:
        self.overrides = dict(overrides or {})
        self.work_dir = Path(tempfile.mkdtemp(prefix="odradek-bench-cluster-"))
        self.postgres = PostgresServer(self.work_dir / "postgres", settings=dict(POSTGRES_SETTINGS))
        self.clusters: list[OdradekCluster] = []
        self._started = False

    def start(self) -> None:
        self.postgres.init()
        self.postgres.start()
        self._started = True
        self.postgres.recycle_wal(RECYCLED_WAL_MB)

    def cluster(self, size: int) -> OdradekCluster:
        """A new cluster of `size` brokers, started (node ids 1..size)."""
        name = f"bench{len(self.clusters)}_{size}"
        url = self.postgres.create_schema(name)
        cluster = OdradekCluster(url, self.work_dir / name, size, {"num.partitions": "1", **self.overrides})
        self.clusters.append(cluster)
        cluster.start()
        return cluster

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.postgres.data_dir / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def cpu_counters(self, cluster: OdradekCluster) -> dict[str, Callable[[], float | None]]:
        """CPU counters (bench/cpu.py) of the cluster's brokers as they run now, by node id,
        and of PostgreSQL as `postgres`; their time waiting for a CPU as `wait-...`."""
        counters: dict[str, Callable[[], float | None]] = {}
        for node_id, broker in cluster.brokers.items():
            pid = broker.pid
            if pid is not None:
                counters[f"broker-{node_id}"] = lambda pid=pid: process_cpu(pid)  # type: ignore[misc]
                counters[f"wait-broker-{node_id}"] = lambda pid=pid: runqueue_wait(pid)  # type: ignore[misc]
        postmaster = self.postmaster_pid()
        if postmaster is not None:
            counters["postgres"] = TreeCpu(postmaster)
            counters["wait-postgres"] = TreeWait(postmaster)
        return counters

    def close(self) -> None:
        try:
            for cluster in self.clusters:
                cluster.close()
        finally:
            if self._started:
                self.postgres.stop()
            shutil.rmtree(self.work_dir, ignore_errors=True)


class MetadataPoller:
    """Metadata of one topic from one broker alone, on a connection kept open between calls
    (polling a broker every few milliseconds must not cost it a connection each time)."""

    def __init__(self, bootstrap: str, topic: str, timeout: float = 2.0) -> None:
        self.address = parse_host_port(bootstrap)
        self.topic = topic
        self.timeout = timeout
        self._conn: WireConnection | None = None

    def leaders(self) -> tuple[dict[int, int], set[int], int]:
        """As `leaders`; a broker that does not answer gives ({}, set(), -1)."""
        try:
            if self._conn is None:
                self._conn = WireConnection(*self.address, self.timeout)
            return _parse(self._conn.call(METADATA, METADATA_VERSION, _request(self.topic)), self.topic)
        except OSError:
            self.close()
            return {}, set(), -1

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _request(topic: str) -> MetadataRequest:
    return MetadataRequest(topics=[MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False)


def leaders(bootstrap: str, topic: str, timeout: float = 5.0) -> tuple[dict[int, int], set[int], int]:
    """Metadata of `topic` from the broker at `bootstrap` alone: each partition's leader (-1
    when it has none), the live brokers listed, and the controller."""
    host, port = parse_host_port(bootstrap)
    with WireConnection(host, port, timeout) as conn:
        return _parse(conn.call(METADATA, METADATA_VERSION, _request(topic)), topic)


def _parse(resp: Any, topic: str) -> tuple[dict[int, int], set[int], int]:
    found = {}
    for t in resp.topics:
        if t.name == topic and t.error_code == 0:
            found = {p.partition_index: (p.leader_id if p.error_code == 0 else -1) for p in t.partitions}
    return found, {b.node_id for b in resp.brokers}, resp.controller_id
