"""What an idle connection costs the broker: the frame reader's scratch buffer
(protocol/frames.py) must not be hundreds of KiB per connection, so that as many idle
connections as Kafka allows (`max.connections`, unbounded by default) fit in memory."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from odradek.testing import OdradekBroker
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from tests.kafka_wire import WireClient

API_VERSIONS = 18
CONNECTIONS = 200
# Resident bytes one idle connection, answered once, may add to the broker (its objects and
# the transport's; the read buffer is one per event loop); a 256 KiB one each was over it fourfold.
MAX_BYTES_PER_CONNECTION = 64 * 1024


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_idle_connections_hold_little_memory(broker: OdradekBroker) -> None:
    pid = broker.pid
    assert pid is not None
    request = ApiVersionsRequest(client_software_name="t", client_software_version="1")
    with ExitStack() as stack:
        # One connection answered first: what the broker makes once (not per connection).
        warm = stack.enter_context(WireClient(broker.bootstrap))
        assert isinstance(warm.call(API_VERSIONS, 3, request), ApiVersionsResponse)
        before = _rss(pid)
        for _ in range(CONNECTIONS):
            client = stack.enter_context(WireClient(broker.bootstrap))
            response = client.call(API_VERSIONS, 3, request)
            assert isinstance(response, ApiVersionsResponse) and response.error_code == 0
        grown = _rss(pid) - before
    assert grown < CONNECTIONS * MAX_BYTES_PER_CONNECTION, f"{grown / CONNECTIONS:.0f} bytes per idle connection"
