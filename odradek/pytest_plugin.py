"""pytest fixtures that run a real odradek broker (registered as the `odradek` plugin
through the `pytest11` entry point).

- `odradek_broker`: one broker for the whole session; its settings come from the
  `odradek_overrides` ini option (lines of `name=value`).
- `odradek_bootstrap`: that broker's `host:port`.
- `odradek_broker_factory`: starts brokers of a test's own, with the keyword settings of
  `odradek.testing.running_broker`; they are stopped when the test ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from odradek.testing import OdradekBroker, broker_overrides


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "odradek_overrides", "broker properties (name=value, one a line) for the odradek_broker fixture",
        type="linelist", default=[],
    )


def _ini_overrides(config: pytest.Config) -> dict[str, str]:
    props: dict[str, str] = {}
    for line in config.getini("odradek_overrides"):
        key, sep, value = line.partition("=")
        if not sep:
            raise pytest.UsageError(f"odradek_overrides: expected name=value, got {line!r}")
        props[key.strip()] = value.strip()
    return props


@pytest.fixture(scope="session")
def odradek_broker(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[OdradekBroker]:
    broker = OdradekBroker(tmp_path_factory.mktemp("odradek") / "data", _ini_overrides(request.config))
    broker.start()
    yield broker
    broker.close()


@pytest.fixture(scope="session")
def odradek_bootstrap(odradek_broker: OdradekBroker) -> str:
    return odradek_broker.bootstrap


@pytest.fixture
def odradek_broker_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., OdradekBroker]]:
    started: list[OdradekBroker] = []

    def start(**settings: Any) -> OdradekBroker:
        broker = OdradekBroker(tmp_path_factory.mktemp("odradek") / "data", broker_overrides(**settings))
        started.append(broker)
        broker.start()
        return broker

    yield start
    for broker in started:
        broker.close()
