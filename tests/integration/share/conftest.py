"""The share group tests' broker: a short acquisition lock (the broker's
group.share.record.lock.duration.ms; a group may not go below 15 s) so that a lock timeout is
observed in seconds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from odradek.testing import OdradekBroker
from tests.broker_process import shared_broker

LOCK_MS = 4000
SHARE_OVERRIDES = {
    "group.share.min.record.lock.duration.ms": "1000",
    "group.share.record.lock.duration.ms": str(LOCK_MS),
}


@pytest.fixture(scope="module")
def share_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OdradekBroker]:
    yield from shared_broker(tmp_path_factory.mktemp("share") / "data", SHARE_OVERRIDES)
