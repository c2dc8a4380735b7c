"""The integration tests' broker process: the same one users get from `odradek.testing`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from odradek.testing import OdradekBroker as BrokerProcess
from odradek.testing import free_port

__all__ = ["ROOT", "BrokerProcess", "free_port", "own_broker", "shared_broker"]

# The checkout under test, where tests run scripts and modules from.
ROOT = Path(__file__).resolve().parents[1]


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
