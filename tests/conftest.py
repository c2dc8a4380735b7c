from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from odradek.testing import OdradekBroker
from tests.broker_process import own_broker, shared_broker

# The plugin users get through the `pytest11` entry point, loaded by name here because the
# checkout under test may not be the installed one.
pytest_plugins = ["pytester", "odradek.pytest_plugin"]


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


# What starts a real broker (or another process: Spark, a fuzzer, a container engine): a test
# that reaches one of these, from its module or from a fixture's, is an integration test.
_PROCESS_NAMES = frozenset({"BrokerProcess", "OdradekBroker", "own_broker", "shared_broker", "subprocess"})


def _starts_processes(module: object) -> bool:
    return any(name in vars(module) for name in _PROCESS_NAMES)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks `integration` (a real process) and leaves the rest in-process (`make check`)."""
    for item in items:
        module = getattr(item, "module", None)
        fixture_modules = {
            sys.modules.get(fixturedef.func.__module__)
            for fixturedefs in item._fixtureinfo.name2fixturedefs.values()  # type: ignore[attr-defined]
            for fixturedef in fixturedefs
        }
        if any(m is not None and _starts_processes(m) for m in {module, *fixture_modules}):
            item.add_marker(pytest.mark.integration)
