"""What the bench runs: each workload with its client, sizes and the figures it reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

KIB = 1024

#: metric name -> (label in the table, unit, whether higher is better)
METRICS: dict[str, tuple[str, str, bool]] = {
    "mb_s": ("", "MB/s", True),
    "records_s": ("", "records/s", True),
    "txn_s": ("", "txn/s", True),
    "p50_ms": ("p50", "ms", False),
    "p99_ms": ("p99", "ms", False),
    "max_ms": ("max", "ms", False),
    "create_s": ("create topic", "s", False),
    "ok": ("worked", "yes/no", True),
    "rss_mb": ("", "MB", False),
    # CPU time per MB moved during a throughput workload's measured part (bench/cpu.py).
    # ms per MB is also seconds per GB (MB = 10**6 bytes).
    "cpu_ms_mb": ("broker CPU", "ms/MB = s/GB", False),
    "pg_cpu_ms_mb": ("PostgreSQL CPU", "ms/MB = s/GB", False),
    # The same for the transaction rows, per 1,000 transactions.
    "cpu_s_ktxn": ("broker CPU", "s/1000 txn", False),
    "pg_cpu_s_ktxn": ("PostgreSQL CPU", "s/1000 txn", False),
    # The latency rows' background: the load producer's and the fill's own rates.
    "load_mb_s": ("load acked", "MB/s", True),
    "fill_mb_s": ("fill", "MB/s", True),
    # The TLS rows: one listener against odradek's own PLAINTEXT one, in the same workload.
    "plaintext_mb_s": ("plaintext", "MB/s", True),
    "vs_plaintext": ("/plaintext", "ratio", True),
    # The share group rows: a share group beside a classic consumer group, odradek only.
    "classic_records_s": ("classic group", "records/s", True),
    "vs_classic": ("/classic group", "ratio", True),
    # The pipeline rows: the connector against the at-least-once path, on odradek only.
    "connector_rows_s": ("connector", "rows/s", True),
    "baseline_rows_s": ("at-least-once", "rows/s", True),
    "vs_baseline": ("connector/at-least-once", "ratio", True),
    "connector_p50_ms": ("connector p50", "ms", False),
    "connector_p99_ms": ("connector p99", "ms", False),
    "baseline_p50_ms": ("at-least-once p50", "ms", False),
    "baseline_p99_ms": ("at-least-once p99", "ms", False),
    "connector_dups": ("connector duplicates", "records", False),
    "baseline_dups": ("at-least-once duplicates", "records", False),
    # The cluster rows (bench/cluster_rows.py): CPU over the measured part, in per cent of
    # one core, and failover times over every fault of a row.
    "busiest_broker_cpu_pct": ("busiest broker CPU", "% of a core", False),
    "brokers_cpu_pct": ("all brokers' CPU", "% of a core", False),
    "pg_cpu_pct": ("PostgreSQL CPU", "% of a core", False),
    "client_cpu_pct": ("producers' CPU", "% of a core", False),
    "brokers_wait_pct": ("brokers waiting for a CPU", "% of the time", False),
    "pg_wait_pct": ("PostgreSQL waiting for a CPU", "% of the time", False),
    "ack_p50_s": ("to first ack on a moved partition p50 [confluent-kafka]", "s", False),
    "ack_p99_s": ("to first ack on a moved partition p99 [confluent-kafka]", "s", False),
    "aio_ack_p50_s": ("to first ack on a moved partition p50 [aiokafka]", "s", False),
    "aio_ack_p99_s": ("to first ack on a moved partition p99 [aiokafka]", "s", False),
    "metadata_p50_s": ("to new leaders in Metadata p50", "s", False),
    "metadata_p99_s": ("to new leaders in Metadata p99", "s", False),
    "failovers": ("failovers measured", "count", True),
    "delivery_errors": ("delivery errors", "count", False),
}


@dataclass(frozen=True)
class Spec:
    key: str  # unique, used in JSON and --only
    title: str  # shown in the table
    func: str  # a name in bench.workloads.WORKLOADS
    params: dict[str, Any]
    metrics: tuple[str, ...]
    hard_limit: float = 120.0
    tags: tuple[str, ...] = field(default=())
    sample_rss: bool = False  # report the brokers' peak memory during this workload
    # Compares two clients on odradek rather than two brokers (the pipeline rows), or two
    # of odradek's listeners (the TLS rows).
    odradek_only: bool = False
    # Gets the broker's SSL and SASL_SSL listeners as `secure` (bench/brokers.py).
    secure: bool = False


def build_plan(quick: bool, fill_mb: int | None = None) -> list[Spec]:
    """`fill_mb`: the size written before the "after a large write" latency row (default
    2,000 MB, 200 with `quick`)."""
    scale = 0.1 if quick else 1.0
    timeout = 30.0 if quick else 60.0

    def n(count: int) -> int:
        return max(10, int(count * scale))

    specs: list[Spec] = []
    clients = [("confluent", "confluent-kafka"), ("aiokafka", "aiokafka")]
    # Counts per client: aiokafka is a pure-Python client and several times slower, so it
    # gets fewer records to keep the run short; both brokers always get the same count.
    produce_counts = {
        ("confluent", 100): 400_000,
        ("confluent", KIB): 100_000,
        ("aiokafka", 100): 100_000,
        ("aiokafka", KIB): 40_000,
    }
    for acks, idempotent, label in [("1", False, "acks=1"), ("all", True, "acks=all idempotent")]:
        for size, size_label in [(100, "100 B"), (KIB, "1 KiB")]:
            for client, client_label in clients:
                tag = "acks1" if acks == "1" else "acksall"
                specs.append(
                    Spec(
                        key=f"produce-{size}-{tag}-{client}",
                        title=f"produce {size_label} {label} [{client_label}]",
                        func=f"produce_{client}",
                        params={
                            "size": size,
                            "count": n(produce_counts[client, size]),
                            "acks": acks,
                            "idempotent": idempotent,
                            "timeout": timeout,
                        },
                        metrics=("mb_s", "records_s"),
                        tags=("produce", tag, client),
                    )
                )
    for size, size_label in [(100, "100 B"), (KIB, "1 KiB")]:
        for client, client_label in clients:
            specs.append(
                Spec(
                    key=f"consume-{size}-{client}",
                    title=f"consume {size_label} [{client_label}]",
                    func=f"consume_{client}",
                    params={"size": size, "count": n(produce_counts[client, size]), "timeout": timeout},
                    metrics=("mb_s", "records_s"),
                    tags=("consume", client),
                )
            )
    for client, client_label in clients:
        specs.append(
            Spec(
                key=f"txn-small-{client}",
                title=f"transactions of 10 x 100 B [{client_label}]",
                func=f"small_txns_{client}",
                params={
                    "size": 100,
                    "per_txn": 10,
                    "count": n(300),
                    "budget": 1.0 if quick else 3.0,
                    "timeout": timeout,
                },
                metrics=("txn_s",),
                tags=("txn", client),
            )
        )
    specs.append(
        Spec(
            key="txn-concurrent-confluent",
            title="transactions of 10 x 100 B, 8 producers at once [confluent-kafka]",
            func="concurrent_txns_confluent",
            params={
                "size": 100,
                "per_txn": 10,
                "producers": 8,
                "count": n(300),
                "budget": 1.0 if quick else 3.0,
                "timeout": timeout,
            },
            metrics=("txn_s",),
            tags=("txn", "confluent"),
        )
    )
    for client, client_label in clients:
        count = 50_000 if client == "confluent" else 20_000
        specs.append(
            Spec(
                key=f"txn-large-{client}",
                title=f"one transaction of {n(count)} x 1 KiB [{client_label}]",
                func=f"large_txn_{client}",
                params={"size": KIB, "count": n(count), "timeout": timeout},
                metrics=("mb_s",),
                tags=("txn", client),
            )
        )
    specs.append(
        Spec(
            key="latency-confluent",
            title="end-to-end 500 msg/s acks=all -> read_committed [confluent-kafka]",
            func="e2e_latency_confluent",
            params={"size": 100, "rate": 500, "seconds": 1.0 if quick else 3.0, "timeout": 20.0},
            metrics=("p50_ms", "p99_ms"),
            tags=("latency", "confluent"),
        )
    )
    specs.append(
        Spec(
            key="latency-load-confluent",
            title="end-to-end 500 msg/s acks=all -> read_committed, beside 1 KiB acks=all at full speed [confluent-kafka]",
            func="e2e_latency_under_load_confluent",
            params={
                "size": 100, "rate": 500, "seconds": 1.0 if quick else 3.0, "timeout": 30.0,
                "load_size": KIB, "load_partitions": 3,
            },
            metrics=("p50_ms", "p99_ms", "load_mb_s"),
            hard_limit=120.0,
            tags=("latency", "confluent"),
        )
    )
    fill = fill_mb if fill_mb is not None else (200 if quick else 2_000)
    specs.append(
        Spec(
            key="latency-after-fill-confluent",
            title=f"end-to-end 500 msg/s acks=all -> read_committed, right after {fill:,} MB written [confluent-kafka]",
            func="e2e_latency_after_fill_confluent",
            params={
                "size": 100, "rate": 500, "seconds": 1.0 if quick else 3.0, "timeout": 600.0,
                "fill_mb": fill, "fill_size": KIB,
            },
            metrics=("p50_ms", "p99_ms", "fill_mb_s"),
            hard_limit=900.0,
            tags=("latency", "confluent"),
        )
    )
    specs.append(
        Spec(
            key="latency-txn-confluent",
            title="end-to-end commit per record, 100 txn/s -> read_committed [confluent-kafka]",
            func="txn_latency_confluent",
            params={"size": 100, "per_txn": 1, "rate": 100, "seconds": 1.0 if quick else 3.0, "timeout": 20.0},
            metrics=("p50_ms", "p99_ms"),
            tags=("latency", "txn", "confluent"),
        )
    )
    specs.append(
        Spec(
            key="partitions-1000-confluent",
            title="1000 partitions, produce 100 B acks=1 [confluent-kafka]",
            func="many_partitions_confluent",
            params={"partitions": 1000, "size": 100, "count": n(100_000), "timeout": timeout},
            metrics=("ok", "create_s", "mb_s", "records_s"),
            tags=("partitions", "confluent"),
            sample_rss=True,
        )
    )
    specs.append(
        Spec(
            key="connections-100-confluent",
            title="100 producer connections, 1 KiB acks=1 [confluent-kafka]",
            func="many_connections_confluent",
            params={
                "connections": 100,
                "partitions": 10,
                "size": KIB,
                "per_connection": n(300),
                "timeout": timeout,
            },
            metrics=("mb_s", "records_s"),
            tags=("connections", "confluent"),
        )
    )
    specs += share_specs(timeout, n)
    specs += tls_specs(timeout, n)
    specs += pipeline_specs(quick, n)
    return specs


def share_specs(timeout: float, n: Callable[[int], int]) -> list[Spec]:
    """Share groups (KIP-932) of 1, 2 and 4 consumers on one partition, acknowledging every
    record explicitly, each beside one classic consumer group member on the same data;
    odradek only, as Tansu serves no share groups. No key contains another workload's tag."""
    return [
        Spec(
            key=f"share-group-{members}",
            title=f"share group of {members}, 1 partition, 100 B, explicit ack [confluent-kafka]",
            func="share_consume_confluent",
            params={"size": 100, "count": n(100_000), "members": members, "timeout": timeout},
            metrics=("records_s", "classic_records_s", "vs_classic"),
            hard_limit=4 * timeout + 60,
            tags=("share",),
            odradek_only=True,
        )
        for members in (1, 2, 4)
    ]


def tls_specs(timeout: float, n: Callable[[int], int]) -> list[Spec]:
    """1 KiB records over SSL and SASL_SSL (PLAIN), each measured beside the same workload
    over PLAINTEXT on the same broker (plaintext, secured, secured, plaintext), for the
    ratio; odradek only, as the peer has no TLS. No key contains another workload's tag (`--only produce` must not pick them)."""
    specs = []
    for protocol, key, label in [("SSL", "tls", "TLS"), ("SASL_SSL", "sasl-ssl", "SASL_SSL PLAIN")]:
        for direction, func, count in [("producing", "secure_produce_confluent", 300_000),
                                       ("consuming", "secure_consume_confluent", 300_000)]:
            verb = "produce 1 KiB acks=1" if direction == "producing" else "consume 1 KiB"
            specs.append(
                Spec(
                    key=f"{key}-{direction}-1kib",
                    title=f"{label}: {verb} [confluent-kafka]",
                    func=func,
                    params={"protocol": protocol, "size": KIB, "count": n(count), "timeout": timeout},
                    metrics=("mb_s", "plaintext_mb_s", "vs_plaintext"),
                    hard_limit=4 * timeout + 60,
                    tags=("tls",),
                    odradek_only=True,
                    secure=True,
                )
            )
    return specs


def pipeline_specs(quick: bool, n: Callable[[int], int]) -> list[Spec]:
    """The connector (`pipeline/`) against a `foreachBatch`/`foreachPartition` with a plain
    producer, in one Spark session on odradek; Spark is slow to start, so `--only pipeline`."""
    timeout = 120.0 if quick else 300.0
    sized = {"size": 100, "partitions": 2, "timeout": timeout}

    def spec(key: str, title: str, params: dict[str, Any], metrics: tuple[str, ...]) -> Spec:
        # No key may contain another workload's tag (`--only latency` must not start Spark).
        return Spec(
            key=key, title=title, func=key.replace("-", "_"), params=params, metrics=metrics,
            hard_limit=2 * timeout + 120, tags=("pipeline",), odradek_only=True,
        )

    return [
        spec(
            "pipeline-batch-read",
            f"pipeline: batch read of {n(200_000):,} x 100 B, 2 partitions",
            {"count": n(200_000), **sized},
            ("connector_rows_s", "baseline_rows_s", "vs_baseline"),
        ),
        spec(
            "pipeline-batch-write",
            f"pipeline: batch write of {n(400_000):,} x 100 B, 4 partitions",
            {"count": n(400_000), **{**sized, "partitions": 4}},
            ("connector_rows_s", "baseline_rows_s", "vs_baseline"),
        ),
        spec(
            "pipeline-copy",
            f"pipeline: streaming copy of {n(200_000):,} x 100 B, 2 partitions",
            {"count": n(200_000), **sized},
            ("connector_rows_s", "baseline_rows_s", "vs_baseline"),
        ),
        spec(
            "pipeline-stream",
            "pipeline: stream read -> write at 20 records/s, send to read_committed arrival",
            {"size": 100, "rate": 20, "seconds": 5.0 if quick else 15.0, "timeout": timeout},
            ("connector_p50_ms", "connector_p99_ms", "baseline_p50_ms", "baseline_p99_ms"),
        ),
        spec(
            "pipeline-driver-kill",
            "pipeline: driver SIGKILL mid-stream, restart, 5,000 records",
            {"count": 5_000, **sized},
            ("connector_dups", "baseline_dups"),
        ),
    ]
