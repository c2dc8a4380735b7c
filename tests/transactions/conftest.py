from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker_process import BrokerProcess

# Fast groups for consume-transform-produce workers.
TXN_OVERRIDES = {
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "1000",
    # Timed-out transactions are looked for every half second, so timeout tests stay short.
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "500",
}



@pytest.fixture(scope="session")
def txn_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path_factory.mktemp("transactions") / "data", overrides=TXN_OVERRIDES)
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture
def fresh_txn_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path / "data", overrides=TXN_OVERRIDES)
    proc.start()
    yield proc
    if proc.alive:
        proc.kill()


@pytest.fixture
def name() -> str:
    """A fresh prefix for the topics, groups and transactional ids of one test."""
    return f"t{uuid.uuid4().hex[:10]}"
