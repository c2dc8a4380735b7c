"""The fault campaign (`faults/`) against a broker whose log is in PostgreSQL: a short
schedule of the broker's faults and PostgreSQL's own (stopped, crashed, cut off) finds no
anomaly. No disk fault, so neither root nor libfuse is needed. Replay a failure with
FAULTS_SEED=<the seed printed>."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from faults.campaign import Run, print_report, run
from odradek.postgres_server import find_bin_dir

SEED = int(os.environ.get("FAULTS_SEED") or 20261126)
# `hold` is left to `make faults FAULTS_ARGS="--engine postgres"`: a held EndTxn of a
# transaction version 1 client delivered late can end the producer's next transaction
# (KAFKA-17754), whichever the engine.
FAULTS = ("kill", "pause", "partition", "delay", "pg-stop", "pg-crash", "pg-cut")

pytestmark = pytest.mark.timeout(240)


def test_postgres_faults_leave_no_anomaly(tmp_path: Path) -> None:
    find_bin_dir()  # PostgreSQL installed (make test installs it)
    print(f"faults seed {SEED}")
    cfg = run(Run(seed=SEED, seconds=40, faults=FAULTS, workdir=tmp_path / "run", engine="postgres"))
    print_report(cfg)
    assert cfg.report is not None
    assert {"pg-stop", "pg-crash", "pg-cut"} <= {f["fault"] for f in cfg.injected}
    assert cfg.drained
    assert cfg.report.valid, cfg.report.table()
    assert not cfg.broker_stops, cfg.broker_stops  # PostgreSQL's faults never stop the broker
    assert cfg.report.ops["txn:ok"] > 20 and cfg.report.ops["send:ok"] > 20
    assert cfg.report.read_values >= cfg.report.acknowledged
