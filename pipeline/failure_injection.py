"""Failures the recovery tests inject through the option `odradek.test.injectFailure`.

Values: `afterProduce:<sparkPartition>:<batchId>` (the task dies with its transaction open),
`afterCommit:<sparkPartition>:<batchId>` (the task dies after its transaction committed), both
on a task's first attempt only (`*` for any batch, e.g. a batch write's), `driverCommit:<batchId>`
(the driver's commit raises), and `pauseInCommit:<batchId>:<path>` (the driver's commit creates
`path` and waits, so that a test can SIGKILL the driver inside the commit). In the sink's
`microBatch` mode `pauseInCommit` comes before the decision is recorded, and
`pauseAfterFirstCommit:<batchId>:<path>` after the first prepared transaction is committed;
`holdInCommit:<dir>` makes the commit of every batch create `<dir>/<batchId>` and wait until
the test removes it."""

from __future__ import annotations

import time
from pathlib import Path

PAUSE_S = 60.0
PAUSE_POINTS = ("pauseInCommit", "pauseAfterFirstCommit")


class InjectedFailure(RuntimeError):
    pass


def maybe_fail(
    spec: str | None, point: str, batch_id: int, spark_partition: int | None = None, attempt: int = 0
) -> None:
    if not spec or attempt > 0:
        return
    for item in spec.split(","):
        parts = item.strip().split(":")
        if parts[0] != point:
            continue
        if point == "driverCommit" and int(parts[1]) == batch_id:
            raise InjectedFailure(f"injected failure: {item}")
        if point in PAUSE_POINTS and int(parts[1]) == batch_id:
            Path(":".join(parts[2:])).touch()
            time.sleep(PAUSE_S)
        if point == "holdInCommit":
            _hold(Path(":".join(parts[1:])) / str(batch_id))
        if len(parts) == 3 and int(parts[1]) == spark_partition and parts[2] in ("*", str(batch_id)):
            raise InjectedFailure(f"injected failure: {item}")


def _hold(flag: Path) -> None:
    flag.touch()
    deadline = time.monotonic() + PAUSE_S
    while flag.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
