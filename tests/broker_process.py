"""The integration tests' broker process: the same one users get from `odradek.testing`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from odradek.testing import OdradekBroker as BrokerProcess
from odradek.testing import free_port

__all__ = ["ENGINES", "ROOT", "BrokerProcess", "engine_overrides", "free_port", "own_broker", "shared_broker"]

# The checkout under test, where tests run scripts and modules from.
ROOT = Path(__file__).resolve().parents[1]


# The storage engines an integration suite's broker runs on (a fixture's params).
ENGINES = ["file", "postgres"]


def engine_overrides(request: pytest.FixtureRequest) -> dict[str, str]:
    """The broker settings of the engine a parametrised fixture runs on (`ENGINES`): the
    PostgreSQL one on a schema of its own on the session's server."""
    if request.param == "postgres":
        return {"storage.engine": request.getfixturevalue("new_postgres_url")()}
    return {}


def shared_broker(data_dir: Path, overrides: dict[str, str] | None = None) -> Iterator[BrokerProcess]:
    """For a fixture whose broker several tests share: started, then stopped cleanly."""
    proc = BrokerProcess(data_dir, overrides)
    proc.start()
    yield proc
    proc.stop()


def own_broker(data_dir: Path, overrides: dict[str, str] | None = None) -> Iterator[BrokerProcess]:
    """For a fixture whose broker one test may kill and restart: killed if still running."""
    proc = BrokerProcess(data_dir, overrides)
    proc.start()
    yield proc
    if proc.alive:
        proc.kill()
