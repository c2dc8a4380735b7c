"""The streaming job (`stream_job.py`) as a subprocess: started, SIGKILLed, its committed batches read back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def start_job(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    # A session of its own: SIGKILL reaches the driver, its JVM and every Python worker at once.
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "tests.integration.pipeline.stream_job", *args],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )


def kill_job(job: subprocess.Popen[bytes]) -> None:
    if job.poll() is None:
        os.killpg(job.pid, signal.SIGKILL)
    job.wait(30)


def wait_for(condition: object, job: subprocess.Popen[bytes], timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert job.poll() is None, f"job exited with {job.returncode}:\n{log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"timed out:\n{log.read_text()[-3000:]}"
        time.sleep(0.1)


def committed_batches(checkpoint: Path) -> list[int]:
    commits = checkpoint / "commits"
    return sorted(int(p.name) for p in commits.iterdir() if p.name.isdigit()) if commits.exists() else []
