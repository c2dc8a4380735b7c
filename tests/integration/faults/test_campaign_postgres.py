"""The fault campaign (`faults/`) against a broker whose log is in PostgreSQL: a short
schedule of the broker's faults and PostgreSQL's own (stopped, crashed, its data folder
losing power, cut off) finds no anomaly. The power loss mounts a FUSE disk (root, libfuse):
without them it is left out. Replay a failure with FAULTS_SEED=<the seed printed>."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from faults.campaign import Run, print_report, run
from odradek.postgres_server import find_bin_dir
from tests.integration.faults.campaign_marks import can_mount

SEED = int(os.environ.get("FAULTS_SEED") or 20261126)
# `hold` is left to `make faults FAULTS_ARGS="--engine postgres"`: a held EndTxn of a
# transaction version 1 client delivered late can end the producer's next transaction
# (KAFKA-17754), whichever the engine.
FAULTS = ("kill", "pause", "partition", "delay", "pg-stop", "pg-crash", "pg-cut") + (
    ("pg-power-loss",) if can_mount() is None else ()
)

pytestmark = pytest.mark.timeout(240)


@pytest.mark.timeout(480)  # a second run when the first left a fault type out
def test_postgres_faults_leave_no_anomaly(tmp_path: Path) -> None:
    find_bin_dir()  # PostgreSQL installed (make test installs it)
    print(f"faults seed {SEED}")
    cfg = run(Run(seed=SEED, seconds=50, faults=FAULTS, workdir=tmp_path / "run", engine="postgres"))
    print_report(cfg)
    assert cfg.report is not None
    # A loaded machine fits fewer faults in the 50 s (each restart takes longer): PostgreSQL's
    # types left out get a run of their own, checked the same way (as test_campaign.py does).
    required = [f for f in FAULTS if f not in {"kill", "pause", "partition", "delay"}]
    missing = tuple(f for f in required if f not in {i["fault"] for i in cfg.injected})
    if missing:
        rest = run(Run(seed=SEED + 1, seconds=30, faults=missing, workdir=tmp_path / "rest", engine="postgres"))
        print_report(rest)
        assert rest.report is not None and rest.report.valid, rest.report and rest.report.table()
        assert rest.drained
        assert {f["fault"] for f in rest.injected} == set(missing)
    assert cfg.drained
    assert cfg.report.valid, cfg.report.table()
    assert not cfg.broker_stops, cfg.broker_stops  # PostgreSQL's faults never stop the broker
    assert cfg.report.ops["txn:ok"] > 20 and cfg.report.ops["send:ok"] > 20
    assert cfg.report.read_values >= cfg.report.acknowledged


@pytest.mark.skipif(can_mount() is not None, reason=str(can_mount()))
@pytest.mark.timeout(600)  # up to three runs
def test_power_loss_catches_commits_answered_before_the_wal_flush(tmp_path: Path) -> None:
    """PostgreSQL run with synchronous_commit=off answers COMMIT before its WAL is on disk:
    a power loss of its data folder takes back rounds the broker acknowledged, which the
    broker still serves from memory until a restart reloads the log from PostgreSQL."""
    find_bin_dir()
    # Only rounds committed since the last power loss and not yet flushed can be taken back;
    # a loaded machine fits fewer of them in one run: up to three seeds, one must catch it.
    tables = []
    for seed in (SEED, SEED + 1, SEED + 2):
        print(f"faults seed {seed}")
        cfg = run(Run(seed=seed, seconds=30, faults=("pg-power-loss", "kill"), workdir=tmp_path / f"run-{seed}",
                      engine="postgres", broken="pg-async-commit"))
        print_report(cfg)
        assert cfg.report is not None
        # Seen: poll-skip (offsets gone from the reloaded log), lost-write, inconsistent-offsets.
        if not cfg.report.valid:
            return
        tables.append(cfg.report.table())
    raise AssertionError("\n".join(tables))
