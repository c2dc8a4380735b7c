"""`odradek health`: the broker answers ApiVersions (done on connecting) and Metadata."""

from __future__ import annotations

import time

from odradek.cli.client import Cluster
from odradek.cli.output import Output


def health(cluster: Cluster, started: float) -> Output:
    """`started` is the monotonic time before connecting, so the latency covers the round
    trips a client makes before its first real request."""
    resp = cluster.metadata([])
    data = {
        "ok": True, "cluster_id": resp.cluster_id, "controller_id": resp.controller_id,
        "brokers": [{"node_id": b.node_id, "host": b.host, "port": b.port} for b in resp.brokers],
        "apis": len(cluster.bootstrap.versions), "latency_ms": round((time.monotonic() - started) * 1000, 1),
    }
    return Output(data, lines=[
        f"OK: {len(resp.brokers)} broker(s), cluster {resp.cluster_id}, {data['apis']} APIs, "
        f"{data['latency_ms']} ms"])
