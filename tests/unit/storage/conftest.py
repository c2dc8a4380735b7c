"""Fixtures: one harness per storage engine so contract tests run against each."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.unit.storage.storage_helpers import Harness


@pytest.fixture(params=["memory", "file", "postgres"])
async def harness(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Harness]:
    h = Harness(request.param, tmp_path / "data")
    if request.param == "postgres":
        h.postgres_url = request.getfixturevalue("postgres_url")
    await h.open()
    yield h
    await h.close()
