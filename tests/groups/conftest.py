from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker_process import BrokerProcess

# Fast groups: no initial rebalance delay, short sessions allowed.
GROUP_OVERRIDES = {"group.initial.rebalance.delay.ms": "0", "group.min.session.timeout.ms": "1000"}


@pytest.fixture(scope="session")
def group_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path_factory.mktemp("groups") / "data", overrides=GROUP_OVERRIDES)
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture
def fresh_group_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path / "data", overrides=GROUP_OVERRIDES)
    proc.start()
    yield proc
    if proc.alive:
        proc.kill()

