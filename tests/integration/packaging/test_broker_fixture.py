"""`odradek.testing.OdradekBroker` as the tests, the benchmarks (bench/brokers.py) and the
fault campaign (faults/campaign.py) drive it: a log with a mark per start, SIGSTOP and
SIGCONT, another entry module and log file, an advertised address of the caller's."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from odradek.testing import OdradekBroker, free_port
from odradek.wire import WireConnection
from protocol.errors import ErrorCode
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.metadata_request import MetadataRequest

API_VERSIONS = 18
METADATA = 3


def _api_versions(conn: WireConnection) -> Any:
    return conn.call(API_VERSIONS, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))


def test_paused_broker_answers_nothing_until_resumed(tmp_path: Path) -> None:
    with OdradekBroker(tmp_path / "data") as broker, WireConnection("127.0.0.1", broker.port) as conn:
        assert _api_versions(conn).error_code == ErrorCode.NONE
        broker.pause()
        assert (broker.paused, broker.alive) == (True, True)
        cid = conn.send(API_VERSIONS, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
        # A stopped process cannot answer: the wait ends only by the socket's timeout.
        conn.sock.settimeout(0.5)
        with pytest.raises(socket.timeout):
            conn.recv_exact(4)
        broker.resume()
        conn.sock.settimeout(30)
        got, response = conn.recv(API_VERSIONS, 3)
        assert (got, response.error_code, broker.paused) == (cid, ErrorCode.NONE, False)


def test_stop_resumes_a_paused_broker_for_a_clean_shutdown(tmp_path: Path) -> None:
    broker = OdradekBroker(tmp_path / "data")
    broker.start()
    broker.pause()
    assert broker.stop() == 0
    assert (broker.alive, broker.paused, broker.pid) == (False, False, None)
    assert "broker stopped" in broker.log_tail(5)


def test_each_start_is_marked_in_the_log(tmp_path: Path) -> None:
    log_path = tmp_path / "logs" / "the-broker.log"
    broker = OdradekBroker(tmp_path / "data", log_path=log_path)
    try:
        broker.start()
        broker.kill()
        broker.start()
    finally:
        broker.close()
    marks = [line.split(" at ")[0] for line in log_path.read_text().splitlines() if line.startswith("=== start")]
    assert marks == ["=== start 0", "=== start 1"]
    assert broker.starts == 2
    assert not (tmp_path / "data-broker.log").exists()


def test_entry_and_advertised_listener(tmp_path: Path) -> None:
    advertised = free_port()
    broker = OdradekBroker(
        tmp_path / "data",
        {"advertised.listeners": f"PLAINTEXT://127.0.0.1:{advertised}"},
        entry=["-m", "faults.broken_broker", "no-fsync"],
    )
    assert broker.command()[1:4] == ["-m", "faults.broken_broker", "no-fsync"]
    with broker, WireConnection("127.0.0.1", broker.port) as conn:
        response = conn.call(METADATA, 9, MetadataRequest(topics=[]))
        assert [(b.host, b.port) for b in response.brokers] == [("127.0.0.1", advertised)]
