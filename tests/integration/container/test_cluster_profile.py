"""The compose file's `cluster` profile run for real (container/cluster-test.sh): PostgreSQL
and three brokers, `odradek cluster describe` through a published port, records produced
and read back, a broker stopped with SIGTERM exiting 0 and the records read back from the
other two. Skipped, with the reason, only where neither docker nor podman can be found or
installed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.broker_process import ROOT

SKIPPED = 77


@pytest.mark.timeout(1200)  # a cold run installs podman and builds the PostgreSQL image
def test_cluster_profile_serves_and_hands_over_on_sigterm() -> None:
    result = subprocess.run(
        ["bash", str(ROOT / "container" / "cluster-test.sh")],
        cwd=ROOT,
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=1100,
    )
    if result.returncode == SKIPPED:
        reason = result.stdout.strip().splitlines()[-1]
        print(reason)
        pytest.skip(reason)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "cluster profile test passed" in result.stdout
    assert "consumed the same 300 records" in result.stdout.split("stop broker 2")[1]
