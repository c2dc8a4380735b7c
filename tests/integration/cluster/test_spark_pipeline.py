"""The streaming example (pipeline/examples/orders_stream.py) on a real Spark standalone
cluster (a master, two workers: executors in JVMs of their own, with Python workers of their
own that import the connector only from the zip the driver ships) against three brokers, the
leader of an input partition killed with SIGKILL mid-stream: every committed order comes out
exactly once, none of the aborted ones (read_committed)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from odradek.testing import OdradekCluster
from pipeline.examples.cluster_run import stream_with_broker_kill
from pipeline.examples.demo_steps import create_topics, generate, stream_output
from pipeline.standalone import SparkStandalone

# 6 transactions of 50, the 4th aborted: 306 offsets with the markers, so two micro-batches
# of orders_stream.py's 200: the first before the kill, the second through the failover.
ORDERS = 300


# Two Spark daemons, two executors and a driver JVM on a machine of 2 cores: generous bounds.
@pytest.mark.timeout(600)
def test_stream_on_spark_standalone_with_a_leader_killed(
    cluster: OdradekCluster, spark_standalone: SparkStandalone, tmp_path: Path
) -> None:
    seed = random.randrange(1 << 30)
    create_topics(cluster.bootstrap)
    committed, aborted = generate(cluster.bootstrap, ORDERS, random.Random(seed))
    assert (len(committed), aborted) == (250, 50)

    run = stream_with_broker_kill(cluster, spark_standalone, tmp_path, timeout=480)

    assert not cluster.broker(run.killed_node).alive
    assert run.batches_at_end > run.batches_at_kill >= 1, run
    # Shipped, not inherited: every executor imported the connector from the zip it fetched
    # into its work directory under the worker's.
    assert run.connector_origins, run
    for origin in run.connector_origins:
        assert Path(origin).is_relative_to(spark_standalone.workdir), origin
        assert "connector.zip" in Path(origin).parts, origin
    result = stream_output(cluster.bootstrap, committed, aborted)
    assert (result.output, result.duplicates, result.missing, result.from_aborted, result.misrouted) == (
        250, 0, 0, 0, 0,
    ), f"{result} (seed {seed})"
