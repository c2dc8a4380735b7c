from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker_process import BrokerProcess, own_broker, shared_broker

# Fast groups: no initial rebalance delay, short sessions allowed.
GROUP_OVERRIDES = {"group.initial.rebalance.delay.ms": "0", "group.min.session.timeout.ms": "1000",
                   "group.consumer.heartbeat.interval.ms": "500"}


@pytest.fixture(scope="session")
def group_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    yield from shared_broker(tmp_path_factory.mktemp("groups") / "data", GROUP_OVERRIDES)


@pytest.fixture
def fresh_group_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    yield from own_broker(tmp_path / "data", GROUP_OVERRIDES)

