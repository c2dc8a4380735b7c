from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.broker_process import ENGINES, BrokerProcess, engine_overrides, shared_broker


@pytest.fixture(scope="session", params=ENGINES)
def broker(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    """The data plane's shared broker, once on each storage engine."""
    yield from shared_broker(tmp_path_factory.mktemp("dataplane") / "data", engine_overrides(request))
