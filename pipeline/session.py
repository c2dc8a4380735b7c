"""A local SparkSession set up for the connector: loopback only, workers on this interpreter."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOOPBACK = "127.0.0.1"


class JavaMissingError(RuntimeError):
    """Spark's driver is a JVM: without `java` no session can start."""


def find_java() -> str:
    """The `java` Spark will launch: `$JAVA_HOME/bin/java` if set, else the one on PATH."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
        raise JavaMissingError(f"JAVA_HOME is {java_home!r} but {candidate} is not an executable java")
    found = shutil.which("java")
    if found is None:
        raise JavaMissingError(
            "no `java` on PATH and JAVA_HOME unset: Spark 4 needs a Java 17 or 21 runtime "
            "(e.g. `apt-get install openjdk-17-jre-headless`)"
        )
    return found


def prepare_environment() -> None:
    """Environment the JVM and its Python workers inherit; must be set before the JVM starts.

    Without these Spark binds to the first non-loopback interface, and starts workers with
    whatever `python3` is on PATH, which may lack pyarrow or this package."""
    os.environ["SPARK_LOCAL_IP"] = LOOPBACK
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    # Workers unpickle the data source classes by reference, so they must import this package.
    root = str(Path(__file__).resolve().parent.parent)
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if root not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([root, *paths])


def local_session(
    app_name: str = "odradek-pipeline",
    master: str = "local[2]",
    conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """A session bound to 127.0.0.1 with the `odradek` data source registered.

    `master="local[2,2]"` lets a failed task be retried once, as on a cluster."""
    find_java()
    prepare_environment()
    from pyspark.sql import SparkSession

    from pipeline.datasource import register

    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.driver.host", LOOPBACK)
        .config("spark.driver.bindAddress", LOOPBACK)
        .config("spark.ui.enabled", "false")
        # A retried task must not race a speculative copy of itself for the same transactional.id.
        .config("spark.speculation", "false")
    )
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    register(spark)
    return spark
