"""The cluster rows of `python -m bench` (docs/cluster.md): 1, 2 and 3 brokers over one
private PostgreSQL, each cluster size a column. Produce throughput and transactions/s run
on every size, the runs interleaved (1, 2, 3, then 3, 2, 1, ...) so that drift on a shared
machine weighs on all sizes alike; the failover rows run on the 3-broker cluster.

Each row has a key of its own for `--only` (`cluster` selects them all); no key contains
another workload's tag, so `--only produce` does not start a cluster."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.clients import create_topic, unique
from bench.cluster_nodes import ClusterSet, leaders
from bench.cluster_produce import produce_per_leader
from bench.cpu import CpuSampler
from bench.failover import failovers
from bench.report import Results
from bench.runner import Outcome, Worker, short_reason
from odradek.testing import OdradekCluster

KIB = 1024
SIZES = (1, 2, 3)
PARTITIONS = 12
COLUMNS = {1: "1 broker", 2: "2 brokers", 3: "3 brokers"}
# The quick run's membership settings: short, so that ten pauses fit in a smoke run. The
# full run keeps Kafka's defaults (9000 and 2000 ms).
QUICK_SESSION_TIMEOUT_MS = 3000
QUICK_HEARTBEAT_INTERVAL_MS = 300
DEFAULT_SESSION_TIMEOUT_MS = 9000


# The figure a row that could not run shows its error in.
MAIN_METRIC = {"cluster-throughput": "mb_s", "cluster-transactions": "txn_s"}


@dataclass(frozen=True)
class ClusterRow:
    key: str  # for --only and the JSON; contains no other workload's tag
    title: str
    tags: tuple[str, ...] = ("cluster",)
    params: dict[str, Any] = field(default_factory=dict)


def cluster_rows(quick: bool, failover_count: int | None = None) -> list[ClusterRow]:
    scale = 0.1 if quick else 1.0
    count = failover_count or (3 if quick else 10)
    return [
        ClusterRow(
            "cluster-throughput",
            "cluster: produce 1 KiB acks=all, 12 partitions, a producer per broker",
            params={"size": KIB, "count": int(120_000 * scale), "timeout": 60.0},
        ),
        ClusterRow(
            "cluster-transactions",
            "cluster: transactions of 10 x 100 B, 8 producers",
            params={"size": 100, "per_txn": 10, "producers": 8, "count": 300,
                    "budget": 1.0 if quick else 3.0, "timeout": 60.0},
        ),
        ClusterRow(
            "cluster-kill9",
            "cluster: kill -9 of a leader",
            params={"kind": "kill", "count": count, "timeout": 60.0},
        ),
        ClusterRow(
            "cluster-sigstop",
            "cluster: SIGSTOP of a leader",
            params={"kind": "sigstop", "count": count, "timeout": 90.0},
        ),
    ]


def selected_rows(rows: list[ClusterRow], only: list[str]) -> list[ClusterRow]:
    if not only:
        return rows
    return [r for r in rows if any(t in r.key or t in r.tags for t in only)]


def percentile(values: list[float], q: float) -> float:
    """Nearest rank: with fewer than 100 values, p99 is the largest."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _cpu_figures(cpu: CpuSampler, names: list[str], start: float, end: float) -> dict[str, float]:
    """Per cent of one core over the window: the busiest broker, all brokers, PostgreSQL;
    and the time the brokers' and PostgreSQL's processes spent waiting for a CPU, in per
    cent of the window (summed over the processes: above 100 when several waited at once)."""
    seconds = max(end - start, 1e-9)
    spent = {n: cpu.spent(n, start, end) for n in names}
    brokers = [v for n, v in spent.items() if n.startswith("broker-") and v is not None]
    out: dict[str, float] = {}
    if brokers:
        out["busiest_broker_cpu_pct"] = 100 * max(brokers) / seconds
        out["brokers_cpu_pct"] = 100 * sum(brokers) / seconds
    if spent.get("postgres") is not None:
        out["pg_cpu_pct"] = 100 * spent["postgres"] / seconds  # type: ignore[operator]
    waits = [v for n, v in spent.items() if n.startswith("wait-broker-") and v is not None]
    if waits:
        out["brokers_wait_pct"] = 100 * sum(waits) / seconds
    if spent.get("wait-postgres") is not None:
        out["pg_wait_pct"] = 100 * spent["wait-postgres"] / seconds  # type: ignore[operator]
    return out


def _throughput(cluster: OdradekCluster, params: dict[str, Any]) -> dict[str, float]:
    topic = unique("cluster-produce")
    bootstrap = cluster.bootstrap
    create_topic(bootstrap, topic, partitions=PARTITIONS)
    # Leaders as the cluster placed them (evenly: docs/cluster.md), read from every broker.
    found: dict[int, int] = {}
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        views = [leaders(b.bootstrap, topic)[0] for b in cluster.brokers.values()]
        if all(v == views[0] for v in views) and len(views[0]) == PARTITIONS and -1 not in views[0].values():
            found = views[0]
            break
        time.sleep(0.05)
    if not found:
        raise RuntimeError(f"no leader for every partition of {topic}")
    by_leader: dict[int, list[int]] = {}
    for partition, leader in sorted(found.items()):
        by_leader.setdefault(leader, []).append(partition)
    return produce_per_leader(bootstrap, topic, by_leader, params["count"], params["size"], params["timeout"])


class ClusterBench:
    """Runs the selected cluster rows into a `Results` table of their own."""

    def __init__(self, rows: list[ClusterRow], runs: int, quick: bool, log: Callable[[str], None]) -> None:
        self.rows = rows
        self.runs = runs
        self.quick = quick
        self.log = log
        self.results = Results(list(COLUMNS.values()), [(COLUMNS[2], COLUMNS[1]), (COLUMNS[3], COLUMNS[1])])
        self.session_timeout_ms = QUICK_SESSION_TIMEOUT_MS if quick else DEFAULT_SESSION_TIMEOUT_MS
        self.meta: dict[str, Any] = {"session_timeout_ms": self.session_timeout_ms, "failovers": []}

    def run(self) -> None:
        overrides = {}
        if self.quick:
            overrides = {
                "broker.session.timeout.ms": str(QUICK_SESSION_TIMEOUT_MS),
                "broker.heartbeat.interval.ms": str(QUICK_HEARTBEAT_INTERVAL_MS),
            }
        clusters = ClusterSet(overrides)
        worker = Worker()
        try:
            clusters.start()
            scaled = [r for r in self.rows if r.key in ("cluster-throughput", "cluster-transactions")]
            failover_rows = [r for r in self.rows if r.params.get("kind")]
            sizes = SIZES if scaled else (3,)
            started: dict[int, OdradekCluster] = {}
            for size in sizes:
                self.log(f"[cluster] starting {COLUMNS[size]}")
                started[size] = clusters.cluster(size)
            for row in scaled:
                for i in range(self.runs):
                    order = SIZES if i % 2 == 0 else tuple(reversed(SIZES))
                    for size in order:
                        self._scaled_run(row, clusters, started[size], size, worker, i)
            for row in failover_rows:
                self._failover_row(row, started[3])
        except Exception as exc:  # PostgreSQL or a cluster did not start: the other tables still print
            reason = short_reason(exc)
            self.log(f"[cluster] {reason}")
            self.meta["error"] = reason
            for row in self.rows:
                if not any(r.key == row.key for r in self.results.rows):
                    self.results.add_value(row.key, row.title, MAIN_METRIC.get(row.key, "metadata_p99_s"),
                                           COLUMNS[3], None, reason)
        finally:
            worker.close()
            clusters.close()

    def _scaled_run(
        self, row: ClusterRow, clusters: ClusterSet, cluster: OdradekCluster, size: int, worker: Worker, i: int
    ) -> None:
        column = COLUMNS[size]
        counters = clusters.cpu_counters(cluster)
        with CpuSampler(counters) as cpu:
            began = time.monotonic()
            if row.key == "cluster-throughput":
                try:
                    outcome = Outcome(metrics=_throughput(cluster, row.params))
                except Exception as exc:
                    outcome = Outcome(error=short_reason(exc))
                metrics = ("mb_s", "records_s")
            else:
                outcome = worker.run("concurrent_txns_confluent", {"bootstrap": cluster.bootstrap, **row.params},
                                     row.params["timeout"] + 60)
                metrics = ("txn_s",)
            outcome.seconds = time.monotonic() - began
            m = outcome.metrics
            if outcome.error is None and {"seconds", "ended_at"} <= m.keys():
                m.update(_cpu_figures(cpu, list(counters), m["ended_at"] - m["seconds"], m["ended_at"]))
                if "client_cpu_s" in m:
                    m["client_cpu_pct"] = 100 * m["client_cpu_s"] / m["seconds"]
        summary = outcome.error or ", ".join(f"{k}={v:.4g}" for k, v in m.items() if k not in ("ended_at",))
        self.log(f"[{column}] {row.key} run {i + 1}/{self.runs} ({outcome.seconds:.1f}s): {summary}")
        cpu_metrics = ("busiest_broker_cpu_pct", "brokers_cpu_pct", "pg_cpu_pct", "client_cpu_pct",
                       "brokers_wait_pct", "pg_wait_pct")
        for metric in (*metrics, *cpu_metrics):
            if outcome.error is not None:
                if metric in metrics:
                    self.results.add_value(row.key, row.title, metric, column, None, outcome.error)
            elif metric in m:
                self.results.add_value(row.key, row.title, metric, column, m[metric], "")

    def _failover_row(self, row: ClusterRow, cluster: OdradekCluster) -> None:
        column = COLUMNS[3]
        kind, count, timeout = row.params["kind"], row.params["count"], row.params["timeout"]
        topic = unique(f"cluster-{kind}")
        try:
            create_topic(cluster.bootstrap, topic, partitions=PARTITIONS)
            run = failovers(cluster, topic, PARTITIONS, kind, count, timeout, log=self.log)
        except Exception as exc:
            reason = short_reason(exc)
            self.log(f"[{column}] {row.key}: {reason}")
            for metric in ("ack_p50_s", "ack_p99_s", "aio_ack_p50_s", "aio_ack_p99_s", "metadata_p50_s",
                           "metadata_p99_s"):
                self.results.add_value(row.key, row.title, metric, column, None, reason)
            return
        if run.stopped is not None:
            self.meta.setdefault("stopped", {})[row.key] = run.stopped
        if not run.failovers:
            for metric in ("ack_p50_s", "ack_p99_s", "aio_ack_p50_s", "aio_ack_p99_s", "metadata_p50_s",
                           "metadata_p99_s"):
                self.results.add_value(row.key, row.title, metric, column, None, run.stopped or "no fault")
            return
        acks = [f.to_ack for f in run.failovers]
        aio_acks = [f.to_ack_aiokafka for f in run.failovers]
        moves = [f.to_metadata for f in run.failovers]
        figures = {
            "ack_p50_s": percentile(acks, 0.5), "ack_p99_s": percentile(acks, 0.99),
            "aio_ack_p50_s": percentile(aio_acks, 0.5), "aio_ack_p99_s": percentile(aio_acks, 0.99),
            "metadata_p50_s": percentile(moves, 0.5), "metadata_p99_s": percentile(moves, 0.99),
            "failovers": float(len(acks)), "delivery_errors": float(len(run.errors)),
        }
        for metric, value in figures.items():
            self.results.add_value(row.key, row.title, metric, column, value, "")
        self.meta["failovers"] += [
            {"kind": f.kind, "victim": f.victim, "controller": f.was_controller, "moved": f.moved,
             "to_ack_s": round(f.to_ack, 4), "to_ack_aiokafka_s": round(f.to_ack_aiokafka, 4),
             "to_metadata_s": round(f.to_metadata, 4)}
            for f in run.failovers
        ]
        if run.errors:
            self.meta.setdefault("delivery_errors", []).extend(run.errors[:5])
