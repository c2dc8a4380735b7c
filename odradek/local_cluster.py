"""`make cluster`: a private PostgreSQL and three odradek brokers over it on 127.0.0.1
(ports 9092-9094 unless told otherwise), in a cluster (docs/cluster.md), until Ctrl-C.

    python -m odradek.local_cluster [--brokers 3] [--first-port 9092] [--dir ./cluster-data]
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from odradek.postgres_server import running_postgres
from odradek.testing import OdradekBroker


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="odradek-cluster", description=__doc__.splitlines()[0])
    parser.add_argument("--brokers", type=int, default=3)
    parser.add_argument("--first-port", type=int, default=9092)
    parser.add_argument("--dir", type=Path, default=Path("cluster-data"), help="the brokers' data and logs")
    args = parser.parse_args(argv)
    base = args.dir.resolve()
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with running_postgres() as postgres:
        brokers = [
            OdradekBroker(
                base / f"broker-{node_id}",
                {"storage.engine": postgres.url, "cluster.enable": "true", "node.id": str(node_id)},
                port=args.first_port + node_id - 1,
            )
            for node_id in range(1, args.brokers + 1)
        ]
        try:
            for broker in brokers:
                broker.start(60)
            print(f"PostgreSQL: {postgres.url}")
            for broker in brokers:
                print(f"broker {broker.overrides['node.id']}: {broker.bootstrap} (log: {broker.log_path})")
            print(f"bootstrap.servers={','.join(b.bootstrap for b in brokers)}", flush=True)
            stop.wait()
        finally:
            for broker in brokers:
                broker.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
