from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient

# Fast groups: no initial rebalance delay, short sessions allowed.
GROUP_OVERRIDES = {"group.initial.rebalance.delay.ms": "0", "group.min.session.timeout.ms": "1000"}


def serves_data_plane(bootstrap: str) -> bool:
    """Whether the broker serves Produce, Fetch and CreateTopics (ApiVersions)."""
    with WireClient(bootstrap) as client:
        response = client.call(18, 0, ApiVersionsRequest())
    assert isinstance(response, ApiVersionsResponse)
    keys = {k.api_key for k in response.api_keys}
    return {0, 1, 19} <= keys


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


@pytest.fixture
def data_plane(group_broker: BrokerProcess) -> None:
    if not serves_data_plane(group_broker.bootstrap):
        pytest.skip("the broker does not serve Produce/Fetch/CreateTopics yet")
