from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from odradek.postgres_server import PostgresServer, running_postgres
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


# What starts a real process (a broker, Spark, a fuzzer, a container engine): a test whose
# module or fixtures reach one of these, directly or through a helper module of tests/, is
# an integration test.
_PROCESS_MODULES = frozenset({"odradek.testing", "subprocess", "multiprocessing", "pyspark"})


def _starts_processes(module: ModuleType, seen: dict[str, bool]) -> bool:
    name = module.__name__
    if name in seen:
        return seen[name]
    seen[name] = False  # a cycle of helper imports adds nothing
    found = False
    for value in list(vars(module).values()):
        origin = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
        if not isinstance(origin, str):
            continue
        if origin.split(".")[0] in _PROCESS_MODULES or origin in _PROCESS_MODULES:
            found = True
        elif origin.startswith("tests.") and origin != name and origin in sys.modules:
            found = _starts_processes(sys.modules[origin], seen)
        if found:
            break
    seen[name] = found
    return found


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks `integration` (a real process); the rest runs in-process (`make check`)."""
    seen: dict[str, bool] = {}
    for item in items:
        modules = {getattr(item, "module", None)} | {
            sys.modules.get(fixturedef.func.__module__)
            for fixturedefs in item._fixtureinfo.name2fixturedefs.values()  # type: ignore[attr-defined]
            for fixturedef in fixturedefs
        }
        # pytester runs a user's test file, whose fixture starts a broker.
        if "pytester" in item.fixturenames or any(
            m is not None and m.__name__.startswith("tests") and _starts_processes(m, seen) for m in modules
        ):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One private PostgreSQL server for the session (odradek/postgres_server.py); tests
    take a database of their own on it (`postgres_url`)."""
    with running_postgres() as server:
        yield server


_schemas = itertools.count()


@pytest.fixture(scope="session")
def new_postgres_url(postgres_server: PostgresServer) -> Callable[[], str]:
    """Makes a new, empty schema on the session's server and returns its URL (a database
    to the engine); for session fixtures (a shared broker on PostgreSQL)."""
    return lambda: postgres_server.create_schema(f"t{os.getpid()}_{next(_schemas)}")


@pytest.fixture
def postgres_url(new_postgres_url: Callable[[], str]) -> str:
    """The URL of a new, empty schema on the session's server."""
    return new_postgres_url()
