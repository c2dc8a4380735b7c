from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from odradek.postgres_server import PostgresServer, running_postgres

# The plugin users get through the `pytest11` entry point, loaded by name here because the
# checkout under test may not be the installed one.
pytest_plugins = ["pytester", "odradek.pytest_plugin"]


_INTEGRATION = Path(__file__).resolve().parent / "integration"


# Tests that share one machine-wide resource run on one pytest-xdist worker: the container
# tests build and run the same image and compose project with podman.
_EXCLUSIVE = {_INTEGRATION / "container": "container"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks `integration` what lies under tests/integration/ (a real process: a broker,
    PostgreSQL, Spark, a fuzzer, a JVM, a container engine); tests/unit/ runs in-process
    (`make check`). Under `make test`'s `--dist loadgroup` a module's tests stay on one
    worker (its module fixtures start once), as do the tests of each `_EXCLUSIVE` folder."""
    for item in items:
        if item.path.is_relative_to(_INTEGRATION):
            item.add_marker(pytest.mark.integration)
        group = next((name for folder, name in _EXCLUSIVE.items() if item.path.is_relative_to(folder)),
                     str(item.path))
        item.add_marker(pytest.mark.xdist_group(group))


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
