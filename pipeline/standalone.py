"""A Spark standalone cluster on 127.0.0.1 for tests and the demo: a master and workers started
with pyspark's own `bin/spark-class` (`org.apache.spark.deploy.master.Master`, `...worker.Worker`),
so executors run in JVMs of their own with Python workers of their own.

The workers' environment has no PYTHONPATH and their directory is a fresh one: an executor
imports the connector only from what the application ships (`pipeline.package.build_zip`
with `--py-files` / `addPyFile`), as on a real cluster."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOOPBACK = "127.0.0.1"
# Small, short-lived JVMs: the client compiler alone starts faster on a busy machine.
QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


class SparkStandalone:
    """A master and `workers` workers of `cores` cores and `memory` each, their logs and work
    directories under `workdir`. `start` returns once every worker is registered with the master."""

    def __init__(self, workdir: Path, workers: int = 2, cores: int = 1, memory: str = "1g") -> None:
        self.workdir = workdir
        self.workers = workers
        self.cores = cores
        self.memory = memory
        self.port = _free_port()
        self.web_port = _free_port()
        self.procs: list[subprocess.Popen[bytes]] = []

    @property
    def master_url(self) -> str:
        return f"spark://{LOOPBACK}:{self.port}"

    def app_conf(self) -> dict[str, str]:
        """What an application needs on this cluster: one executor per worker that fits in it."""
        return {
            "spark.executor.cores": str(self.cores),
            "spark.executor.memory": "512m",
            "spark.cores.max": str(self.cores * self.workers),
            # The executors' Python workers run this interpreter: it has pyspark, pyarrow and
            # confluent-kafka, but not (through the environment) the connector.
            "spark.pyspark.python": sys.executable,
            "spark.executor.extraJavaOptions": QUICK_JVM,
            "spark.driver.extraJavaOptions": QUICK_JVM,
            "spark.ui.showConsoleProgress": "false",
        }

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_HOME")}
        env.update(
            SPARK_HOME=str(spark_home()),
            SPARK_LOCAL_IP=LOOPBACK,
            SPARK_LOCAL_HOSTNAME=LOOPBACK,
            SPARK_DAEMON_MEMORY="256m",
            SPARK_DAEMON_JAVA_OPTS=QUICK_JVM,
            SPARK_LOG_DIR=str(self.workdir / "logs"),
            SPARK_CONF_DIR=str(self.workdir / "conf"),
        )
        return env

    def _write_conf(self) -> None:
        conf = self.workdir / "conf"
        conf.mkdir(parents=True, exist_ok=True)
        # The master's REST submission server would take the fixed port 6066.
        (conf / "spark-defaults.conf").write_text("spark.master.rest.enabled false\n")

    def _launch(self, name: str, args: list[str]) -> None:
        cwd = self.workdir / name
        cwd.mkdir(parents=True, exist_ok=True)
        with open(self.workdir / f"{name}.log", "ab") as log:
            self.procs.append(
                subprocess.Popen(
                    [str(spark_home() / "bin" / "spark-class"), *args],
                    cwd=cwd, env=self._env(), stdout=log, stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    # A group of its own: stopping it takes the JVM and the executors it started.
                    start_new_session=True,
                )
            )

    def state(self) -> dict[str, Any] | None:
        """The master's view (its web UI's /json), or None while it does not answer."""
        try:
            with urllib.request.urlopen(f"http://{LOOPBACK}:{self.web_port}/json/", timeout=2) as resp:
                state: dict[str, Any] = json.load(resp)
                return state
        except OSError:
            return None

    def alive_workers(self) -> int:
        state = self.state() or {}
        return sum(1 for w in state.get("workers", []) if w.get("state") == "ALIVE")

    def _check_running(self) -> None:
        for proc in self.procs:
            if proc.poll() is not None:
                raise RuntimeError(f"a Spark daemon exited with {proc.returncode}:\n{self.logs()}")

    def _master_listening(self) -> bool:
        try:
            with socket.create_connection((LOOPBACK, self.port), timeout=1):
                return True
        except OSError:
            return False

    def start(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        self._write_conf()
        self._launch(
            "master",
            [
                "org.apache.spark.deploy.master.Master",
                "--host", LOOPBACK, "--port", str(self.port), "--webui-port", str(self.web_port),
            ],
        )
        # Workers started before the master listens retry only after seconds.
        while not self._master_listening():
            self._check_running()
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Spark master did not listen in {timeout}s:\n{self.logs()}")
            time.sleep(0.1)
        for i in range(self.workers):
            self._launch(
                f"worker-{i}",
                [
                    "org.apache.spark.deploy.worker.Worker",
                    "--host", LOOPBACK, "--port", str(_free_port()), "--webui-port", str(_free_port()),
                    "--cores", str(self.cores), "--memory", self.memory,
                    "--work-dir", str(self.workdir / f"worker-{i}" / "work"),
                    self.master_url,
                ],
            )
        while self.alive_workers() < self.workers:
            self._check_running()
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.workers} Spark workers not registered in {timeout}s:\n{self.logs()}")
            time.sleep(0.2)

    def logs(self, lines: int = 30) -> str:
        out = []
        for log in sorted(self.workdir.glob("*.log")):
            tail = log.read_text(errors="replace").splitlines()[-lines:]
            out.append(f"--- {log.name}\n" + "\n".join(tail))
        return "\n".join(out)

    def close(self) -> None:
        for proc in self.procs:
            # The whole group, even when the daemon itself is gone: its executors may not be.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
        self.procs.clear()

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def connector_origins(spark: SparkSession) -> list[str]:
    """Where the executors' Python workers import `pipeline` from: one task per core, one stage."""
    sc = spark.sparkContext
    slots = max(2, sc.defaultParallelism)
    found = sc.parallelize(range(slots), slots).map(
        lambda _: os.path.abspath(str(importlib.import_module("pipeline").__file__))
    )
    return sorted(set(found.collect()))
