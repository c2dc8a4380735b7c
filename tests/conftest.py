from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker_process import BrokerProcess


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    """One broker shared by the tests that don't restart it."""
    proc = BrokerProcess(tmp_path_factory.mktemp("shared") / "data")
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture
def fresh_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    """A broker of the test's own, free to be killed and restarted."""
    proc = BrokerProcess(tmp_path / "data")
    proc.start()
    yield proc
    if proc.alive:
        proc.kill()


@pytest.fixture
def bootstrap(broker: BrokerProcess) -> str:
    return broker.bootstrap
