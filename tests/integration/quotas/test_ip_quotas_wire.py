"""KIP-612's ip quotas on the real broker: `connection_creation_rate` set on an ip entity with
AlterClientQuotas bounds the rate of new connections from that address; one over the rate
gets no answer and is closed after its throttle time, while connections already open carry
on, and removing the quota lets new ones in again."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages.api_versions_request import ApiVersionsRequest
from tests.broker_process import BrokerProcess, own_broker
from tests.integration.quotas.quota_wire import API_VERSIONS, alter, described, entry, op
from tests.kafka_wire import WireClient, encode_request

RATE = 2  # connections a second, over Kafka's minimum span of 10 one-second windows


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    yield from own_broker(tmp_path / "data")


def answers(bootstrap: str) -> bool:
    with WireClient(bootstrap) as c:
        resp: Any = c.call(API_VERSIONS, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
        return bool(resp.error_code == ErrorCode.NONE)


def closed_unanswered(bootstrap: str) -> float:
    """Seconds until the broker closes a new connection that asked for ApiVersions and got
    nothing back."""
    host, port = bootstrap.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        start = time.monotonic()
        sock.sendall(encode_request(API_VERSIONS, 3, ApiVersionsRequest(
            client_software_name="t", client_software_version="1"), 1))
        assert sock.recv(4096) == b""
        return time.monotonic() - start


def test_an_address_over_its_connection_creation_rate_is_closed_unanswered(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as admin:
        assert alter(admin, entry({"ip": "127.0.0.1"}, op("connection_creation_rate", RATE))) == [(0, None)]
        assert described(admin) == {(("ip", "127.0.0.1"),): {"connection_creation_rate": float(RATE)}}
        # Within the span, RATE x 10 connections fit; the next is throttled and closed.
        assert all(answers(broker.bootstrap) for _ in range(RATE * 10))
        waited = closed_unanswered(broker.bootstrap)
        assert 0.1 < waited < 5
        # The open connection is not affected; without the quota new ones are served again.
        assert alter(admin, entry({"ip": "127.0.0.1"}, op("connection_creation_rate", remove=True))) == [(0, None)]
        assert described(admin) == {}
    assert answers(broker.bootstrap)
    assert "connection creation rate" in broker.log()


def test_the_default_ip_entity_applies_to_addresses_without_their_own(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as admin:
        assert alter(
            admin,
            entry({"ip": None}, op("connection_creation_rate", RATE)),
            entry({"ip": "192.0.2.1"}, op("connection_creation_rate", 1000)),
            entry({"ip": "10.0.0.1", "user": "alice"}, op("connection_creation_rate", 1)),
            entry({"ip": "10.0.0.1"}, op("producer_byte_rate", 1)),
            entry({"ip": "no\x9chost"}, op("connection_creation_rate", 1)),  # not even a host name
        ) == [
            (0, None),
            (0, None),
            (ErrorCode.INVALID_REQUEST,
             "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId"),
            (ErrorCode.INVALID_REQUEST, "Invalid configuration key producer_byte_rate"),
            (ErrorCode.INVALID_REQUEST, "no\x9chost is not a valid IP or resolvable host."),
        ]
        assert all(answers(broker.bootstrap) for _ in range(RATE * 10))
        assert closed_unanswered(broker.bootstrap) < 5
