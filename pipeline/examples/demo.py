"""End-to-end demo: generate orders (some transactions aborted), stream them through Spark with a
SIGKILL of the driver at a random moment and a restart from the checkpoint, then count the
output with a read_committed consumer: every committed order exactly once, no aborted one.

usage: python -m pipeline.examples.demo [--bootstrap HOST:PORT | --cluster] [--orders N] [--seed S]
Without --bootstrap it starts a broker of its own (`odradek.testing.OdradekBroker`) in a
temporary directory; with it, the topics orders, orders-large, orders-small and
customer-totals must be new. With --cluster it runs on three brokers over PostgreSQL and a
Spark standalone cluster instead, and kills a broker mid-stream (pipeline/examples/cluster_run.py)."""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from odradek.testing import OdradekBroker
from pipeline.examples.cluster_run import run_on_clusters
from pipeline.examples.demo_steps import check_batch, check_stream, create_topics, generate, stream_with_kill


@contextmanager
def local_broker(workdir: Path) -> Iterator[str]:
    with OdradekBroker(workdir / "data", log_path=workdir / "broker.log") as broker:
        yield broker.bootstrap


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bootstrap", help="an existing broker; default: start one")
    parser.add_argument("--orders", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=random.randrange(1 << 30))
    parser.add_argument(
        "--cluster",
        action="store_true",
        help="three brokers over PostgreSQL and a Spark standalone cluster; a broker killed mid-stream",
    )
    args = parser.parse_args()
    if args.cluster and args.bootstrap:
        parser.error("--cluster starts its own brokers: no --bootstrap")
    rng = random.Random(args.seed)
    print(f"seed {args.seed}")
    with tempfile.TemporaryDirectory(prefix="odradek-pipeline-") as tmp:
        workdir = Path(tmp)
        if args.cluster:
            ok = run_on_clusters(workdir, args.orders, rng)
        else:
            with nullcontext(args.bootstrap) if args.bootstrap else local_broker(workdir) as bootstrap:
                create_topics(bootstrap)
                committed, aborted = generate(bootstrap, args.orders, rng)
                stream_with_kill(bootstrap, workdir, rng)
                ok = check_stream(bootstrap, committed, aborted)
                ok = check_batch(bootstrap, committed) and ok
    print("exactly once: OK" if ok else "exactly once: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
