"""Connection limits and idle expiry on the real broker: the connection past a limit is
closed and logged while the others keep being answered."""

from __future__ import annotations

import time
from pathlib import Path

from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient

API_VERSIONS = 18


def answered(c: WireClient) -> bool:
    response = c.call(API_VERSIONS, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
    assert isinstance(response, ApiVersionsResponse)
    return response.error_code == 0


def check_third_refused(proc: BrokerProcess, setting: str) -> None:
    with WireClient(proc.bootstrap) as first, WireClient(proc.bootstrap) as second:
        assert answered(first) and answered(second)
        with WireClient(proc.bootstrap) as third:
            assert third.is_closed_by_peer(timeout=10)
        assert answered(first) and answered(second)
        assert "rejected connection" in proc.log() and setting in proc.log()
    # Closing the first two frees their places.
    with WireClient(proc.bootstrap) as again:
        assert answered(again)


def test_max_connections_per_ip(tmp_path: Path) -> None:
    with BrokerProcess(tmp_path / "data", {"max.connections.per.ip": "2"}) as proc:
        check_third_refused(proc, "max.connections.per.ip")


def test_max_connections(tmp_path: Path) -> None:
    with BrokerProcess(tmp_path / "data", {"max.connections": "2"}) as proc:
        check_third_refused(proc, "max.connections")


def test_idle_connection_closed_active_one_kept(tmp_path: Path) -> None:
    with BrokerProcess(tmp_path / "data", {"connections.max.idle.ms": "1500"}) as proc:
        with WireClient(proc.bootstrap) as idle, WireClient(proc.bootstrap) as active:
            assert answered(idle) and answered(active)
            deadline = time.monotonic() + 4.0
            while time.monotonic() < deadline:
                assert answered(active)
                time.sleep(0.3)
            assert idle.is_closed_by_peer(timeout=5)
            assert answered(active)
        assert "reason=idle" in proc.log()
