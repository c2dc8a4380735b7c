"""Runs the Java client programs of this folder, or says why they cannot run."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration.java import jars

HERE = Path(__file__).resolve().parent

# Fast groups: no initial rebalance delay, short sessions and KIP-848 heartbeats.
JAVA_OVERRIDES = {
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "1000",
    "group.consumer.heartbeat.interval.ms": "500",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "500",
}


def skip_reason() -> str | None:
    if shutil.which("java") is None:
        return "no `java` on PATH: the Java client tier needs a JDK 17+"
    if not jars.present():
        return f"the Java client jars are missing from {jars.jar_dir()}: run `python -m tests.integration.java.jars` (make test does)"
    return None


def run_java(program: str, *args: str, timeout: float = 120.0) -> dict[str, str]:
    """Runs tests/integration/java/<program> and returns its `key=value` lines (a repeated key keeps
    the last value); fails with the program's output when it exits non-zero."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    done = subprocess.run(
        ["java", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", f"{jars.jar_dir()}/*", str(HERE / program), *args],
        capture_output=True, text=True, timeout=timeout,
    )
    assert done.returncode == 0, f"{program} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    facts: dict[str, str] = {}
    for line in done.stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            facts[key] = value
    return facts
