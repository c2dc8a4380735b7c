"""Fixtures of the tests that start a real broker process; tests/conftest.py marks every
test under this folder `integration`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from odradek.testing import OdradekBroker
from tests.broker_process import own_broker, shared_broker


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OdradekBroker]:
    """One broker shared by the tests that don't restart it."""
    yield from shared_broker(tmp_path_factory.mktemp("shared") / "data")


@pytest.fixture
def fresh_broker(tmp_path: Path) -> Iterator[OdradekBroker]:
    """A broker of the test's own, free to be killed and restarted."""
    yield from own_broker(tmp_path / "data")


@pytest.fixture
def bootstrap(broker: OdradekBroker) -> str:
    return broker.bootstrap
