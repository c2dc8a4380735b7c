"""broker/inter_broker.py against a real broker process: answers decoded, a connection
reused for the next request, and a peer that is gone raised as PeerUnavailable."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from broker.inter_broker import InterBrokerClient, PeerUnavailable
from odradek.testing import OdradekBroker
from odradek.wire import parse_host_port
from protocol.errors import ErrorCode
from protocol.messages.api_versions_request import ApiVersionsRequest

API_VERSIONS = 18


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_requests_answered_over_one_kept_connection(broker: OdradekBroker) -> None:
    address = parse_host_port(broker.bootstrap)
    client = InterBrokerClient({1: address}.get, client_id="inter-broker-test", timeout_s=10)
    try:
        for _ in range(3):
            resp: Any = await client.call(1, API_VERSIONS, 3, ApiVersionsRequest(
                client_software_name="odradek-broker", client_software_version="1"))
            assert resp.error_code == ErrorCode.NONE
            assert any(k.api_key == 27 for k in resp.api_keys)  # WriteTxnMarkers
        # One request at a time: the same connection served all three.
        assert client.idle_connections(1) == 1
    finally:
        client.close()


async def test_an_unknown_or_unreachable_peer_is_unavailable() -> None:
    client = InterBrokerClient({2: ("127.0.0.1", closed_port())}.get, client_id="inter-broker-test", timeout_s=5)
    try:
        with pytest.raises(PeerUnavailable):
            await client.call(2, API_VERSIONS, 3, ApiVersionsRequest())
        with pytest.raises(PeerUnavailable):
            await client.call(3, API_VERSIONS, 3, ApiVersionsRequest())
    finally:
        client.close()
