"""`python -m bench`: start odradek and a peer broker, drive both with the same workloads,
print a table of medians and ratios, then one JSON line with every figure."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from bench.brokers import Broker, Odradek, OdradekPostgres, RssSampler, Tansu
from bench.cluster_rows import ClusterBench, cluster_rows, selected_rows
from bench.cpu import CpuSampler
from bench.plan import Spec, build_plan
from bench.report import Results, as_json, table
from bench.runner import Outcome, Worker

MB = 1_000_000
POSTGRES = "odradek-pg"  # odradek on the PostgreSQL engine, beside the file engine's "odradek"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="a short smoke run: 1/10 of the data, one run each"
    )
    parser.add_argument(
        "--runs", type=int, help="runs per workload and broker; the median is reported (default 3)"
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="TEXT",
        help="run only workloads whose key or tag contains TEXT (repeatable), e.g. produce, consume, txn, aiokafka",
    )
    parser.add_argument(
        "--bootstrap",
        "--peer-bootstrap",
        dest="peer_bootstrap",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="compare against this running broker instead of starting Tansu (repeatable)",
    )
    parser.add_argument(
        "--peer-name", help="column name of the peer (default: tansu, or peer with --bootstrap)"
    )
    parser.add_argument(
        "--peer-pid", type=int, help="pid of a --bootstrap broker on this machine, to read its RSS"
    )
    parser.add_argument("--no-peer", action="store_true", help="measure odradek alone")
    parser.add_argument(
        "--no-postgres",
        action="store_true",
        help="skip odradek on the PostgreSQL storage engine (run beside the file engine by default)",
    )
    parser.add_argument(
        "--odradek-bootstrap",
        metavar="HOST:PORT",
        help="use an odradek already running there (e.g. under a profiler)",
    )
    parser.add_argument("--odradek-pid", type=int, help="pid of that odradek, to read its RSS")
    parser.add_argument(
        "--odradek-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting of the odradek brokers the bench starts (repeatable), e.g. cpu.affinity=1",
    )
    parser.add_argument(
        "--fill-mb",
        type=int,
        help="MB written before the latency-after-fill row (default 2000, 200 with --quick)",
    )
    parser.add_argument(
        "--no-cluster", action="store_true", help="skip the cluster rows (1, 2 and 3 brokers over PostgreSQL)"
    )
    parser.add_argument(
        "--failovers", type=int, help="faults per failover row of the cluster (default 10; 3 with --quick)"
    )
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    args = parser.parse_args(argv)
    if args.runs is None:
        args.runs = 1 if args.quick else 3
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def selected(plan: list[Spec], only: list[str]) -> list[Spec]:
    if not only:
        return plan
    return [s for s in plan if any(t in s.key or t in s.tags for t in only)]


def make_brokers(args: argparse.Namespace) -> list[Broker]:
    if args.odradek_bootstrap:
        brokers: list[Broker] = [Broker("odradek", bootstrap=args.odradek_bootstrap, pid=args.odradek_pid)]
    else:
        overrides = dict(item.partition("=")[::2] for item in args.odradek_set)
        brokers = [Odradek("odradek", overrides=overrides)]
        if not args.no_postgres:
            brokers.append(OdradekPostgres(POSTGRES, overrides=overrides))
    if args.no_peer:
        return brokers
    if args.peer_bootstrap:
        bootstrap = ",".join(args.peer_bootstrap)
        brokers.append(Broker(args.peer_name or "peer", bootstrap=bootstrap, pid=args.peer_pid))
    else:
        brokers.append(Tansu(args.peer_name or "tansu"))
    return brokers


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def summary(outcome: Outcome) -> str:
    if outcome.error is not None:
        return f"error: {outcome.error}"
    return ", ".join(f"{k}={v:.4g}" for k, v in outcome.metrics.items())


def run(args: argparse.Namespace) -> int:
    plan = selected(build_plan(args.quick, args.fill_mb), args.only)
    rows = [] if args.no_cluster else selected_rows(cluster_rows(args.quick, args.failovers), args.only)
    if args.list:
        for spec in plan:
            print(f"{spec.key:32} {spec.title}")
        for row in rows:
            print(f"{row.key:32} {row.title}")
        return 0
    began = time.monotonic()
    meta: dict[str, Any] = {"bench": "odradek", "quick": args.quick, "runs": args.runs}
    tables = []
    results = Results([])
    if plan:
        results = run_brokers(args, plan, meta)
        tables.append(table(results, args.runs))
    if rows:
        cluster = ClusterBench(rows, args.runs, args.quick, log)
        cluster.run()
        tables.append(table(cluster.results, args.runs))
        meta["cluster"] = {**cluster.meta, "results": json.loads(as_json(cluster.results, {}))["results"]}
    meta["elapsed_s"] = round(time.monotonic() - began, 1)
    print("\n\n".join(tables))
    print(as_json(results, meta))
    return 0


def run_brokers(args: argparse.Namespace, plan: list[Spec], meta: dict[str, Any]) -> Results:
    """The single-broker rows: odradek, its PostgreSQL engine and the peer, side by side."""
    brokers = make_brokers(args)
    names = [b.name for b in brokers]
    failed: dict[str, str] = {}
    # odradek against the peer, and its PostgreSQL engine against its file engine.
    ratios = [(names[0], n) for n in names[1:] if n != POSTGRES][:1]
    if POSTGRES in names:
        ratios.append((POSTGRES, names[0]))
    results = Results(names, ratios)
    worker = Worker()
    try:
        for broker in brokers:
            try:
                broker.start()
                log(f"{broker.name}: {broker.bootstrap}" + (f" pid {broker.pid}" if broker.pid else ""))
            except Exception as exc:
                failed[broker.name] = f"did not start: {str(exc).splitlines()[0][:100]}"
                log(f"{broker.name}: {exc}")
        time.sleep(1.0)
        for broker in brokers:
            rss = broker.rss()
            results.add_value(
                "rss-idle",
                "broker RSS at idle",
                "rss_mb",
                broker.name,
                rss / MB if rss else None,
                failed.get(broker.name, "no pid to read"),
            )
        counters = {
            f"{b.name}:{metric}": counter
            for b in brokers
            if b.name not in failed
            for metric, counter in b.cpu_counters().items()
        }
        with RssSampler([b for b in brokers if b.name not in failed]) as sampler, CpuSampler(counters) as cpu:
            for spec in plan:
                for i in range(args.runs):
                    # Alternate which broker goes first, so drift on a shared machine
                    # does not always favour the same one.
                    order = brokers if i % 2 == 0 else list(reversed(brokers))
                    if spec.odradek_only:
                        order = brokers[:1]
                    for broker in order:
                        outcome, peak = run_one(worker, spec, broker, failed, sampler)
                        log(
                            f"[{broker.name}] {spec.key} run {i + 1}/{args.runs} ({outcome.seconds:.1f}s): {summary(outcome)}"
                        )
                        results.add(spec, broker.name, outcome)
                        add_cpu(results, cpu, spec, broker.name, outcome)
                        if spec.sample_rss:
                            results.add_value(
                                f"{spec.key}-rss",
                                f"broker RSS, peak during {spec.title}",
                                "rss_mb",
                                broker.name,
                                peak / MB if peak else None,
                                outcome.error or "no pid to read",
                            )
            overall = sampler.overall()
        for broker in brokers:
            peak = overall.get(broker.name)
            results.add_value(
                "rss-peak",
                "broker RSS, peak over the whole run",
                "rss_mb",
                broker.name,
                peak / MB if peak else None,
                failed.get(broker.name, "no pid to read"),
            )
    finally:
        worker.close()
        for broker in brokers:
            broker.stop()
    meta["brokers"] = {b.name: {"bootstrap": b.bootstrap, "kind": type(b).__name__.lower()} for b in brokers}
    return results


def add_cpu(results: Results, cpu: CpuSampler, spec: Spec, broker: str, outcome: Outcome) -> None:
    """CPU per MB of a throughput workload's measured part (bench/cpu.py), for each counter
    the broker has."""
    m = outcome.metrics
    if outcome.error is not None or not {"seconds", "ended_at"} <= m.keys():
        return
    # Per MB moved (throughput rows) or per 1,000 transactions (the transaction rows).
    if m.get("mb", 0) > 0:
        per, scale = "", 1000 / m["mb"]
    elif m.get("txns", 0) > 0:
        per, scale = "per-ktxn", 1000 / m["txns"]
    else:
        return
    for counter in ("cpu_ms_mb", "pg_cpu_ms_mb"):
        spent = cpu.spent(f"{broker}:{counter}", m["ended_at"] - m["seconds"], m["ended_at"])
        if spent is None:
            continue
        if per:  # CPU seconds per 1,000 transactions
            metric = counter.replace("_ms_mb", "_s_ktxn")
            results.add_value(f"{spec.key}-{metric}", spec.title, metric, broker, spent * scale, "")
        else:
            results.add_value(f"{spec.key}-{counter}", spec.title, counter, broker, spent * scale, "")


def run_one(
    worker: Worker, spec: Spec, broker: Broker, failed: dict[str, str], sampler: RssSampler
) -> tuple[Outcome, int | None]:
    """Run one workload once on one broker; also return the broker's peak RSS during it."""
    if broker.name in failed:
        return Outcome(error=failed[broker.name]), None
    params = {"bootstrap": broker.bootstrap, **spec.params}
    if spec.secure:
        if broker.secure is None:
            return Outcome(error="no SSL/SASL_SSL listeners known (a broker the bench started has them)"), None
        params["secure"] = broker.secure
    sampler.reset()
    outcome = worker.run(spec.func, params, spec.hard_limit)
    peak = sampler.peaks().get(broker.name)
    if not broker.alive():
        failed[broker.name] = "broker exited"
        log(f"{broker.name} exited; log tail:\n{broker.log_tail()}")
    return outcome, peak


def main(argv: list[str] | None = None) -> int:
    try:
        return run(parse_args(argv))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
