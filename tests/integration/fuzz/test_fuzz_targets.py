"""Bounded runs of every fuzz target (fuzz/): each starts from its seed corpus and must
run its time budget without a failed invariant. Long runs: `make fuzz`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("atheris")

ROOT = Path(__file__).resolve().parents[3]
TARGETS = ["frames", "requests", "record_batches", "segments"]
SECONDS = 4  # per target: the four together stay well under a minute, start-up included


@pytest.mark.parametrize("target", TARGETS)
def test_fuzz_target_runs_clean(target: str, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    run = subprocess.run(
        [sys.executable, "-m", f"fuzz.{target}", f"-max_total_time={SECONDS}", "-seed=1",
         f"-artifact_prefix={tmp_path}/", str(corpus)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-4000:]
    done = re.search(r"Done (\d+) runs in", out)
    assert done is not None, out[-4000:]
    # The seeds alone are dozens of inputs; a run that did no more than read them did not fuzz.
    assert int(done.group(1)) > 100, out[-2000:]
    assert not list(tmp_path.glob("crash-*"))
