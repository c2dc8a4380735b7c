from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from odradek.testing import OdradekBroker

# The plugin users get through the `pytest11` entry point, loaded by name here because the
# checkout under test may not be the installed one.
pytest_plugins = ["pytester", "odradek.pytest_plugin"]


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OdradekBroker]:
    """One broker shared by the tests that don't restart it."""
    proc = OdradekBroker(tmp_path_factory.mktemp("shared") / "data")
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture
def fresh_broker(tmp_path: Path) -> Iterator[OdradekBroker]:
    """A broker of the test's own, free to be killed and restarted."""
    proc = OdradekBroker(tmp_path / "data")
    proc.start()
    yield proc
    if proc.alive:
        proc.kill()


@pytest.fixture
def bootstrap(broker: OdradekBroker) -> str:
    return broker.bootstrap
