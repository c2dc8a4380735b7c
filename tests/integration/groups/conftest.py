from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker_process import ENGINES, BrokerProcess, engine_overrides, own_broker, shared_broker
from tests.integration.groups.group_settings import GROUP_OVERRIDES


@pytest.fixture(scope="session", params=ENGINES)
def group_broker(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    """One broker on each storage engine, shared by the tests that don't restart it."""
    overrides = {**GROUP_OVERRIDES, **engine_overrides(request)}
    yield from shared_broker(tmp_path_factory.mktemp("groups") / "data", overrides)


@pytest.fixture
def fresh_group_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    yield from own_broker(tmp_path / "data", GROUP_OVERRIDES)
