"""Three odradek broker processes over the session's private PostgreSQL (a schema of
their own per test), on loopback ports."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from odradek.testing import OdradekCluster
from pipeline.standalone import SparkStandalone

# Short, so that a paused broker's partitions move within a test's bounded wait.
SESSION_TIMEOUT_MS = 3000
HEARTBEAT_INTERVAL_MS = 300


@pytest.fixture
def cluster(tmp_path: Path, new_postgres_url: Callable[[], str]) -> Iterator[OdradekCluster]:
    nodes = OdradekCluster(
        new_postgres_url(),
        tmp_path,
        overrides={
            "broker.session.timeout.ms": str(SESSION_TIMEOUT_MS),
            "broker.heartbeat.interval.ms": str(HEARTBEAT_INTERVAL_MS),
            "num.partitions": "3",
        },
    )
    with nodes:
        yield nodes


@pytest.fixture(scope="module")
def spark_standalone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkStandalone]:
    """A Spark standalone master and two workers (1 core, 1g each) on loopback, every worker
    registered; their process groups killed at the end."""
    with SparkStandalone(tmp_path_factory.mktemp("spark-standalone")) as spark:
        yield spark
