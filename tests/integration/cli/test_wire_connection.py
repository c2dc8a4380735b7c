"""odradek/wire.py, the one blocking connection under the admin CLI, the sink's two-phase
commit and the raw-wire tests: a request answered, and what it raises when the broker breaks
off or is not there."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from odradek.testing import OdradekBroker, free_port
from odradek.wire import REAUTH_FRACTION, WireConnection, WireError, error_name, parse_host_port
from protocol.errors import ErrorCode
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.metadata_request import MetadataRequest
from protocol.sasl_client import Plain, SaslAuthenticationError

API_VERSIONS = 18


def test_a_request_is_answered_under_its_correlation_id(bootstrap: str) -> None:
    with WireConnection(*parse_host_port(bootstrap), client_id="tools-test") as conn:
        for expected in (1, 2):
            response = conn.call(API_VERSIONS, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
            assert (conn.correlation_id, response.error_code) == (expected, ErrorCode.NONE)
        assert API_VERSIONS in {k.api_key for k in response.api_keys}


def test_a_connection_closed_mid_request_is_a_wire_error_naming_the_broker(tmp_path: Path) -> None:
    with OdradekBroker(tmp_path / "data", {"socket.request.max.bytes": "1000"}) as broker:
        conn = WireConnection("127.0.0.1", broker.port)
        # The size of a frame larger than socket.request.max.bytes: the broker closes the
        # connection (with nothing of ours unread, so with a FIN rather than a reset).
        conn.send_raw(struct.pack(">i", 1001))
        with pytest.raises(WireError) as raised:
            conn.recv_frame()
        assert str(raised.value) == f"127.0.0.1:{broker.port} closed the connection"
        assert isinstance(raised.value, ConnectionError)
        conn.close()


def test_no_broker_is_an_os_error() -> None:
    with pytest.raises(ConnectionRefusedError):
        WireConnection("127.0.0.1", free_port(), timeout=5)


def test_addresses_and_error_names() -> None:
    assert parse_host_port(" [::1]:9092 ") == ("::1", 9092)
    assert parse_host_port("broker-1:19092") == ("broker-1", 19092)
    for bad in ("localhost", "host:port", ""):
        with pytest.raises(ValueError, match="expected host:port"):
            parse_host_port(bad)
    assert error_name(ErrorCode.NOT_COORDINATOR) == "NOT_COORDINATOR"
    assert error_name(9999) == "UNKNOWN_ERROR_CODE_9999"


def test_a_sasl_login_and_its_renewal_before_the_session_ends(tmp_path: Path) -> None:
    """KIP-368: the broker grants a session of connections.max.reauth.ms; the connection logs
    in again on the same socket once REAUTH_FRACTION of it has passed (its clock injected, so
    the test does not wait)."""
    lifetime_s, port, sasl_port = 600, free_port(), free_port()
    jaas = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";'
    overrides = {
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}",
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": jaas,
        "connections.max.reauth.ms": str(lifetime_s * 1000),
    }
    now = [1000.0]
    with OdradekBroker(tmp_path / "data", overrides, port) as broker:
        conn = WireConnection("127.0.0.1", sasl_port, sasl=Plain("alice", "alice-secret"), clock=lambda: now[0])
        with conn:
            # SaslHandshake and one SaslAuthenticate.
            assert (conn.correlation_id, conn.reauthenticate_at) == (2, 1000.0 + lifetime_s * REAUTH_FRACTION)
            conn.call(3, 12, MetadataRequest(topics=[]))
            assert conn.correlation_id == 3
            mark = broker.log_size()
            now[0] += lifetime_s * REAUTH_FRACTION
            assert conn.call(3, 12, MetadataRequest(topics=[])).brokers
            # The login again (two requests) before the Metadata request.
            assert (conn.correlation_id, conn.reauthenticate_at) == (6, now[0] + lifetime_s * REAUTH_FRACTION)
            assert "re-authentication started" in broker.log_since(mark)

        with pytest.raises(SaslAuthenticationError) as refused:
            WireConnection("127.0.0.1", sasl_port, sasl=Plain("alice", "wrong"))
        assert str(refused.value) == (f"127.0.0.1:{sasl_port} refused the PLAIN login: SASL_AUTHENTICATION_FAILED: "
                                      "Authentication failed: Invalid username or password")
