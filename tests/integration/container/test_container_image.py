"""`make container-test` inside the test suite: the image built and the compose project run
with a real engine (container/test.sh). Skipped, with the reason, only where neither docker
nor podman can be found or installed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.broker_process import ROOT

SKIPPED = 77


@pytest.mark.timeout(1200)  # a cold run installs podman and bootstraps a Debian base image
def test_image_serves_stops_cleanly_and_keeps_its_data() -> None:
    result = subprocess.run(
        ["bash", str(ROOT / "container" / "test.sh")],
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
    assert "container test passed" in result.stdout
    assert "clean-shutdown marker present" in result.stdout
