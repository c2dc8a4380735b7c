"""Bad input closes the offending connection (or gets Kafka's error answer) and nothing else."""

from __future__ import annotations

import re
import struct

import pytest

from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from protocol.messages.metadata_request import MetadataRequest
from tests.broker_process import BrokerProcess
from tests.kafka_wire import WireClient, encode_request


def assert_broker_healthy(broker: BrokerProcess) -> None:
    assert broker.alive
    with WireClient(broker.bootstrap) as client:
        response = client.call(18, 0, ApiVersionsRequest())
        assert isinstance(response, ApiVersionsResponse)
        assert response.error_code == 0


def header_v1(api_key: int, version: int, correlation_id: int = 1) -> bytes:
    return struct.pack(">hhih", api_key, version, correlation_id, 4) + b"test"


def framed(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


BAD_FRAMES = {
    "negative size": struct.pack(">i", -5) + b"xxxx",
    "zero size": struct.pack(">i", 0),
    "size above socket.request.max.bytes": struct.pack(">i", 100 * 1024 * 1024 + 1),
    "size of 2**31-1": struct.pack(">i", 2**31 - 1),
    "frame shorter than a header": struct.pack(">i", 3) + b"abc",
    "unknown API key": struct.pack(">i", 10) + header_v1(9999, 0)[:8] + b"\x00\x00",
    "unsupported Metadata version": struct.pack(">i", 14) + header_v1(3, 99),
    "negative API key": struct.pack(">i", 14) + header_v1(-1, 0),
    "client id longer than the frame": struct.pack(">i", 10) + struct.pack(">hhih", 18, 0, 1, 1000),
    "Metadata topic array claiming 2**31-1 entries": struct.pack(">i", 18)
    + header_v1(3, 1)
    + struct.pack(">i", 2**31 - 1),
    "Metadata topic name longer than the frame": framed(header_v1(3, 1) + struct.pack(">ih", 1, 30000) + b"ab"),
    "invalid UTF-8 in a topic name": framed(header_v1(3, 1) + struct.pack(">ih", 1, 2) + b"\xff\xfe"),
    "truncated Metadata body": struct.pack(">i", 16) + header_v1(3, 1) + b"\x00\x00",
    "garbage": b"\x00\x00\x00\x10" + bytes(range(200, 216)),
}


@pytest.mark.parametrize("name", sorted(BAD_FRAMES))
def test_bad_frame_closes_only_that_connection(broker: BrokerProcess, name: str) -> None:
    mark = broker.log_size()
    with WireClient(broker.bootstrap) as bystander, WireClient(broker.bootstrap) as client:
        peer = f"127.0.0.1:{client.sock.getsockname()[1]}"
        client.send_raw(BAD_FRAMES[name])
        assert client.is_closed_by_peer()
        # The connection opened before the bad one keeps working.
        assert isinstance(bystander.call(18, 1, ApiVersionsRequest()), ApiVersionsResponse)
    assert_broker_healthy(broker)
    # The line of this case's own connection, logged during this test: not one left in the
    # shared broker's log by an earlier case.
    closes = [line for line in broker.log_since(mark).splitlines() if "closing connection" in line]
    assert [line for line in closes if re.search(rf"peer={re.escape(peer)}\b", line)], closes


def test_unsupported_api_versions_version_gets_a_v0_answer(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as client:
        # A future ApiVersions version whose body we cannot parse.
        client.send_raw(struct.pack(">i", 14 + 5) + header_v1(18, 77, 42) + b"\x01\x02\x03\x04\x05")
        frame = client.recv_frame()
        (correlation_id,) = struct.unpack_from(">i", frame)
        assert correlation_id == 42
        response = ApiVersionsResponse.decode(frame[4:], 0)
        assert response.error_code == 35  # UNSUPPORTED_VERSION
        assert [(k.api_key, k.min_version, k.max_version) for k in response.api_keys] == [(18, 0, 4)]
        # The connection stays open for the retry at a supported version.
        assert isinstance(client.call(18, 3, ApiVersionsRequest(client_software_name="x", client_software_version="1")), ApiVersionsResponse)


def test_frame_sent_one_byte_at_a_time(broker: BrokerProcess) -> None:
    with WireClient(broker.bootstrap) as client:
        data = encode_request(3, 4, MetadataRequest(topics=None), 5)
        for i in range(len(data)):
            client.send_raw(data[i : i + 1])
        frame = client.recv_frame()
        assert struct.unpack_from(">i", frame)[0] == 5


def test_truncated_frame_then_disconnect_leaves_the_broker_healthy(broker: BrokerProcess) -> None:
    data = encode_request(3, 4, MetadataRequest(topics=None), 5)
    for cut in (1, 3, 4, 10, len(data) - 1):
        with WireClient(broker.bootstrap) as client:
            client.send_raw(data[:cut])
    assert_broker_healthy(broker)


def test_configured_frame_limit_is_enforced(tmp_path) -> None:  # type: ignore[no-untyped-def]
    proc = BrokerProcess(tmp_path / "data", {"socket.request.max.bytes": "1000"})
    proc.start()
    try:
        with WireClient(proc.bootstrap) as client:
            client.send_raw(struct.pack(">i", 1001) + b"x" * 100)
            assert client.is_closed_by_peer()
        with WireClient(proc.bootstrap) as client:
            assert isinstance(client.call(18, 0, ApiVersionsRequest()), ApiVersionsResponse)
    finally:
        proc.stop()
