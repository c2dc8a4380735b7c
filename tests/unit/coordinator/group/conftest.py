from __future__ import annotations

from tests.unit.coordinator.group.group_harness import h  # noqa: F401 - the fixture
