"""The Java client tier: single-file Java programs (run by Java 17's source launcher, no
build tool) against real brokers, one with transaction version 2 finalized and one without.
Each program runs several scenarios and prints `key=value` lines; the tests assert on them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.broker_process import BrokerProcess, shared_broker
from tests.integration.java.java_programs import JAVA_OVERRIDES, skip_reason


@pytest.fixture(scope="session")
def tv1_java_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    if reason := skip_reason():
        pytest.skip(reason)
    yield from shared_broker(tmp_path_factory.mktemp("java-tv1") / "data", JAVA_OVERRIDES)


@pytest.fixture(scope="session")
def tv2_java_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    if reason := skip_reason():
        pytest.skip(reason)
    overrides = {**JAVA_OVERRIDES, "transaction.version": "2"}
    yield from shared_broker(tmp_path_factory.mktemp("java-tv2") / "data", overrides)


@pytest.fixture(scope="module", params=["tv-not-finalized", "tv2-finalized"])
def java_broker(request: pytest.FixtureRequest) -> BrokerProcess:
    """Each program runs against both: the 4.3 client speaks transaction version 2 only
    where the broker has finalized it."""
    fixture = "tv1_java_broker" if request.param == "tv-not-finalized" else "tv2_java_broker"
    broker: BrokerProcess = request.getfixturevalue(fixture)
    return broker
