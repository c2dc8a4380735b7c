from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from pyspark.sql import SparkSession

import pipeline


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """One session for every pipeline test: start-up costs 5-10 s. `local[2,2]` lets a failed
    task be retried once, as a cluster would."""
    session = pipeline.local_session(
        app_name="odradek-pipeline-tests",
        master="local[2,2]",
        conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"},
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def name() -> str:
    """A fresh prefix for the topics, groups and transactional ids of one test."""
    return f"p{uuid.uuid4().hex[:10]}"
