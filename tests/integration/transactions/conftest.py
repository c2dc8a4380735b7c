from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.broker_process import ENGINES, BrokerProcess, own_broker, shared_broker
from tests.names import unique

# Fast groups for consume-transform-produce workers.
TXN_OVERRIDES = {
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "1000",
    # Timed-out transactions are looked for every half second, so timeout tests stay short.
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "500",
}


@pytest.fixture(scope="session")
def file_txn_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    yield from shared_broker(tmp_path_factory.mktemp("transactions") / "data", TXN_OVERRIDES)


@pytest.fixture(scope="session")
def postgres_txn_broker(
    tmp_path_factory: pytest.TempPathFactory, new_postgres_url: Callable[[], str]
) -> Iterator[BrokerProcess]:
    overrides = {**TXN_OVERRIDES, "storage.engine": new_postgres_url()}
    yield from shared_broker(tmp_path_factory.mktemp("transactions-pg") / "data", overrides)


@pytest.fixture(params=ENGINES)
def txn_broker(request: pytest.FixtureRequest) -> BrokerProcess:
    """A broker on each storage engine (one of each shared by the tests that don't restart it)."""
    broker: BrokerProcess = request.getfixturevalue(f"{request.param}_txn_broker")
    return broker


@pytest.fixture
def fresh_txn_broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    yield from own_broker(tmp_path / "data", TXN_OVERRIDES)


@pytest.fixture
def name() -> str:
    """A fresh prefix for the topics, groups and transactional ids of one test."""
    return unique("t")


@pytest.fixture(scope="session")
def tv2_txn_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    """As `txn_broker`, with transaction version 2 finalized (which no client here speaks)."""
    overrides = {**TXN_OVERRIDES, "transaction.version": "2"}
    yield from shared_broker(tmp_path_factory.mktemp("transactions-tv2") / "data", overrides)


@pytest.fixture(params=["tv-not-finalized", "tv2-finalized"])
def either_txn_broker(request: pytest.FixtureRequest) -> BrokerProcess:
    """Clients of transaction version 1 must work the same whether or not version 2 is finalized."""
    fixture = "file_txn_broker" if request.param == "tv-not-finalized" else "tv2_txn_broker"
    broker: BrokerProcess = request.getfixturevalue(fixture)
    return broker
