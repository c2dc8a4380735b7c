"""The broker under test as a child process: started, killed, paused and resumed by the
nemesis, always on the same log directory."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from odradek.testing import wait_until_listening

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    def __init__(
        self,
        log_dir: Path,
        log_path: Path,
        port: int,
        advertised_port: int,
        overrides: dict[str, str],
        broken: str | None = None,
    ) -> None:
        self.log_dir = log_dir
        self.log_path = log_path
        self.port = port
        self.advertised_port = advertised_port
        self.overrides = overrides
        self.broken = broken
        self.proc: subprocess.Popen[bytes] | None = None
        self.paused = False
        self.starts = 0

    def start(self, timeout: float = 60.0) -> None:
        module = ["-m", "faults.broken_broker", self.broken] if self.broken else ["-m", "broker"]
        args = [
            sys.executable,
            *module,
            "--listeners",
            f"PLAINTEXT://127.0.0.1:{self.port}",
            "--advertised-listeners",
            f"PLAINTEXT://127.0.0.1:{self.advertised_port}",
            "--log-dirs",
            str(self.log_dir),
        ]
        for key, value in self.overrides.items():
            args += ["--override", f"{key}={value}"]
        with open(self.log_path, "ab") as log:
            log.write(f"=== start {self.starts} at {time.monotonic():.3f}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                args, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ)
            )
        self.starts += 1
        self.paused = False
        wait_until_listening(self.proc, self.port, timeout, self.log_tail)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None
        self.paused = False

    def pause(self) -> None:
        if self.alive:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGSTOP)
            self.paused = True

    def resume(self) -> None:
        if self.proc is not None and self.paused:
            self.proc.send_signal(signal.SIGCONT)
        self.paused = False

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM (a clean shutdown), SIGKILL if it is not done in time."""
        if self.proc is None:
            return
        self.resume()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return ""
