"""`python -m faults`: the campaign. Runs of `--seconds` each, one seed after another, until
`--total` seconds of workload have run; prints each run's report and the checker's table,
then one JSON line with the totals. Exits 1 on any anomaly.

    python -m faults --seed 7 --seconds 60 --total 180
    FAULTS_SEED=7 FAULTS_SECONDS=180 make faults
    python -m faults --engine postgres --seconds 60   # the log in PostgreSQL, with its faults
    python -m faults --cluster --seconds 120         # three brokers over PostgreSQL, a cluster's faults
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

from .campaign import (
    ALL_FAULTS,
    CLUSTER_FAULTS,
    ENGINES,
    FAULTS,
    PG_ASYNC_COMMIT,
    POSTGRES_FAULTS,
    Run,
    print_report,
    run,
    summary,
)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m faults")
    parser.add_argument(
        "--seed", type=int, default=int(os.environ.get("FAULTS_SEED") or random.randrange(1 << 31))
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="workload time of one run")
    parser.add_argument(
        "--total",
        type=float,
        default=float(os.environ.get("FAULTS_SECONDS") or 180),
        help="workload time in all",
    )
    parser.add_argument("--fault", action="append", choices=ALL_FAULTS, help="only these faults (repeatable)")
    parser.add_argument("--engine", choices=ENGINES, default="file",
                        help="the broker's storage engine (postgres: a private PostgreSQL server, with its faults)")
    parser.add_argument("--cluster", action="store_true",
                        help="three brokers over one PostgreSQL, with a cluster's faults (faults/cluster.py)")
    parser.add_argument(
        "--broken", choices=["no-fsync", "aborted-reads", PG_ASYNC_COMMIT],
        help="a deliberately broken broker, or (pg-async-commit, with --engine postgres) PostgreSQL"
    )
    parser.add_argument("--keep", type=Path, help="keep histories and logs in this directory")
    args = parser.parse_args()
    default_faults = CLUSTER_FAULTS if args.cluster else POSTGRES_FAULTS if args.engine == "postgres" else FAULTS
    print(f"faults campaign: seed {args.seed} (replay with FAULTS_SEED={args.seed})", flush=True)
    base = args.keep or Path(tempfile.mkdtemp(prefix="odradek-faults-"))
    runs: list[Run] = []
    elapsed = 0.0
    index = 0
    while elapsed < args.total:
        seconds = min(args.seconds, args.total - elapsed)
        cfg = Run(
            seed=args.seed + index,
            seconds=max(seconds, 10.0),
            faults=tuple(args.fault or default_faults),
            engine="postgres" if args.cluster else args.engine,
            cluster=args.cluster,
            workdir=base / f"run-{index}",
            broken=args.broken,
        )
        runs.append(run(cfg))
        print_report(cfg)
        elapsed += cfg.seconds
        index += 1
    totals = summary(runs)
    print(json.dumps(totals))
    ok = not any(totals["anomalies"].values()) and totals["drained"]
    print("PASS: no anomaly" if ok else f"FAIL: anomalies {totals['anomalies']} (histories in {base})")
    if ok and args.keep is None:
        shutil.rmtree(base, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
