"""Runs the real broker as a child process, as a user would, for integration tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class BrokerProcess:
    """A broker on a free loopback port with its own data directory; restartable on the
    same directory to test recovery."""

    def __init__(self, data_dir: Path, overrides: dict[str, str] | None = None, port: int | None = None) -> None:
        self.data_dir = data_dir
        self.port = port or free_port()
        self.overrides = dict(overrides or {})
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = data_dir.parent / f"{data_dir.name}-broker.log"

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        args = [
            sys.executable,
            "-m",
            "broker",
            "--listeners",
            f"PLAINTEXT://127.0.0.1:{self.port}",
            "--log-dirs",
            str(self.data_dir),
        ]
        for key, value in self.overrides.items():
            args += ["--override", f"{key}={value}"]
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child keeps writing to it
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ))
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"broker exited with {self.proc.returncode}:\n{self.log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"broker did not start in {timeout}s:\n{self.log()}")

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_size(self) -> int:
        """The log's current length in bytes: a mark for `log_since`."""
        try:
            return self.log_path.stat().st_size
        except FileNotFoundError:
            return 0

    def log_since(self, mark: int) -> str:
        """What the broker logged after `mark` (from `log_size`), so a test sees only the
        lines its own case produced."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(mark)
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def kill(self) -> None:
        """SIGKILL: no chance to flush or write a clean-shutdown marker."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM and wait: a clean shutdown."""
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
                raise RuntimeError(f"broker ignored SIGTERM:\n{self.log()}") from None
        code = self.proc.returncode
        self.proc = None
        return code

    def restart(self) -> None:
        self.stop()
        self.start()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def shared_broker(data_dir: Path, overrides: dict[str, str] | None = None) -> Iterator[BrokerProcess]:
    """For a fixture whose broker several tests share: started, then stopped cleanly."""
    proc = BrokerProcess(data_dir, overrides)
    proc.start()
    yield proc
    proc.stop()


def own_broker(data_dir: Path, overrides: dict[str, str] | None = None) -> Iterator[BrokerProcess]:
    """For a fixture whose broker one test may kill and restart: killed if still running."""
    proc = BrokerProcess(data_dir, overrides)
    proc.start()
    yield proc
    if proc.alive:
        proc.kill()
