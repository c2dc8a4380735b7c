"""PostgreSQL for the campaign's `--engine postgres` and `--cluster` runs: a private server
(odradek/postgres_server.py) in a folder of its own, reached through a raw proxy the
nemesis can cut, its data folder optionally on a lazyfs disk for pg-power-loss."""

from __future__ import annotations

import contextlib
import random
import shutil
import tempfile
import time
from pathlib import Path

from odradek.testing import free_port

from .disks import Disk
from .proxy import Proxy

# PostgreSQL's disk for pg-power-loss (a tmpfs: memory only as far as it is used).
PG_DISK_MB = 2048
# `pg-async-commit`: COMMIT answered before its WAL is flushed. The WAL writer flushes
# what async commits wrote every wal_writer_delay (200 ms by default) or once
# wal_writer_flush_after of it piled up (1 MB): a power loss takes back only the rounds of
# that last window, which a loaded machine, committing few rounds, often leaves empty. At
# their maxima (10 s, and more WAL than a run writes) every acknowledged round of the last
# seconds before a power loss is at risk.
ASYNC_COMMIT_SETTINGS = {"synchronous_commit": "off", "wal_writer_delay": "10s", "wal_writer_flush_after": "1GB"}


class Postgres:
    """PostgreSQL for `--engine postgres`: a private server (odradek/postgres_server.py),
    the broker connected to it through a raw proxy the nemesis can cut."""

    def __init__(self, seed: int, *, power_loss: bool = False, synchronous_commit: bool = True) -> None:
        from odradek.postgres_server import TEST_SETTINGS, PostgresServer

        # Its own folder (odradek/postgres_server.py: never under pytest's), removed at the end.
        self.directory = Path(tempfile.mkdtemp(prefix="odradek-faults-pg-"))
        # For pg-power-loss its data folder is on a lazyfs disk of its own.
        self.disk = Disk(self.directory / "disk", PG_DISK_MB) if power_loss else None
        data_path = self.disk.mount / "data" if self.disk is not None else None
        settings = {**TEST_SETTINGS, **({} if synchronous_commit else ASYNC_COMMIT_SETTINGS)}
        self.server = PostgresServer(self.directory, data_path=data_path, settings=settings)
        self.proxy = Proxy(free_port(), self.server.port, seed, raw=True)

    @property
    def url(self) -> str:
        return f"postgresql://{self.server.user}@127.0.0.1:{self.proxy.listen_port}/{self.server.database}"

    def start(self) -> None:
        if self.disk is not None:
            self.disk.setup()
        self.server.init()
        self.server.start()
        self.proxy.start()

    def power_loss(self) -> None:
        """The machine under PostgreSQL loses power: the server dies at once, then what it
        had not fsynced is gone, then it starts again and recovers from its WAL."""
        assert self.disk is not None
        self.server.stop("immediate")
        self.disk.power_loss()
        self.server.restart()

    def stop(self) -> None:
        with contextlib.suppress(RuntimeError):  # its thread never started (a failed start)
            self.proxy.stop()
        try:
            # The run is over: on the power-loss disk nothing is kept, so no shutdown
            # checkpoint through lazyfs (slow) either.
            self.server.stop("fast" if self.disk is None else "immediate")
        finally:
            if self.disk is not None:
                self.disk.teardown()
            shutil.rmtree(self.directory, ignore_errors=True)


def pg_fault(pg: Postgres, fault: str, rng: random.Random) -> None:
    """One of PostgreSQL's faults: pg-cut, pg-power-loss, pg-stop or pg-crash."""
    if fault == "pg-cut":
        pg.proxy.drop()
        time.sleep(rng.uniform(1.0, 3.0))
        pg.proxy.heal()
    elif fault == "pg-power-loss":
        pg.power_loss()
    elif fault in ("pg-stop", "pg-crash"):  # stopped cleanly, or as a crash: recovery from its WAL
        pg.server.stop("fast" if fault == "pg-stop" else "immediate")
        time.sleep(rng.uniform(0.5, 2.0))
        pg.server.restart()
    else:
        raise ValueError(f"unknown PostgreSQL fault {fault!r}")
