"""A TLS listener's transport at its edges, over real TLS: a large response to a reader whose
window is small (the broker's writes back up, pause_writing and resume_writing follow), many
small pipelined requests, and a client gone mid-response."""

from __future__ import annotations

import socket
import ssl
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from protocol import record_batch as rb
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from protocol.messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from protocol.messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from tests.broker_process import BrokerProcess, free_port
from tests.integration.security.certs import Pki, make_pki
from tests.kafka_wire import WireClient, create_topic, decode_response, encode_request
from tests.names import unique

RECORDS = 64
VALUE_BYTES = 64 * 1024


@dataclass
class Setup:
    process: BrokerProcess
    pki: Pki
    ssl_port: int
    topic: str

    @property
    def ssl_bootstrap(self) -> str:
        return f"127.0.0.1:{self.ssl_port}"

    def context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.pki.ca))

    def connect(self, receive_buffer: int | None = None) -> ssl.SSLSocket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer is not None:
            # Set before connecting so the advertised window stays small.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        sock.settimeout(30)
        sock.connect(("127.0.0.1", self.ssl_port))
        return self.context().wrap_socket(sock, server_hostname="127.0.0.1")


def _value(i: int) -> bytes:
    return struct.pack(">i", i) + bytes([i % 251]) * (VALUE_BYTES - 4)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    root = tmp_path_factory.mktemp("tls-transport")
    pki = make_pki(root / "pki")
    port, ssl_port = free_port(), free_port()
    process = BrokerProcess(root / "data", {
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SSL://127.0.0.1:{ssl_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(pki.server.keystore),
    }, port)
    process.start()
    topic = unique("tls-transport")
    try:
        with WireClient(process.bootstrap) as plain:
            create_topic(plain, topic)
            for i in range(0, RECORDS, 8):
                batch = rb.build_batch([rb.Record(None, _value(i + j)) for j in range(8)])
                response: Any = plain.call(0, 9, ProduceRequest(acks=-1, timeout_ms=10_000, topic_data=[
                    TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=0, records=batch)])
                ]))
                assert response.responses[0].partition_responses[0].error_code == 0
        yield Setup(process, pki, ssl_port, topic)
    finally:
        process.close()


def _fetch_all(topic: str) -> FetchRequest:
    return FetchRequest(max_wait_ms=0, min_bytes=0, max_bytes=50_000_000, topics=[
        FetchTopic(topic=topic, partitions=[FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=50_000_000)])
    ])


def _recv_exact(sock: ssl.SSLSocket, n: int, piece: int = 1 << 20) -> bytes:
    out = bytearray()
    while len(out) < n:
        chunk = sock.recv(min(piece, n - len(out)))
        if not chunk:
            raise ConnectionError("closed by the broker")
        out += chunk
    return bytes(out)


def _recv_response(sock: ssl.SSLSocket, api_key: int, version: int, piece: int = 1 << 20) -> tuple[int, Any]:
    (size,) = struct.unpack(">i", _recv_exact(sock, 4))
    return decode_response(api_key, version, _recv_exact(sock, size, piece))


def _values(partition: Any) -> list[bytes | None]:
    return [r.value for batch in rb.decode_batches(bytes(partition.records)) for r in batch.records]


def test_a_large_response_to_a_slow_reader_arrives_whole_and_in_order(setup: Setup) -> None:
    with setup.connect(receive_buffer=4096) as sock:
        # Pipelined: the 4 MiB fetch, then ApiVersions, then the same fetch again.
        sock.sendall(encode_request(1, 11, _fetch_all(setup.topic), 1)
                     + encode_request(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"), 2)
                     + encode_request(1, 11, _fetch_all(setup.topic), 3))
        for cid, api_key, version in ((1, 1, 11), (2, 18, 3), (3, 1, 11)):
            # Read in 4 KiB pieces: the broker's writes back up against the small window.
            got, response = _recv_response(sock, api_key, version, piece=4096)
            assert got == cid
            if api_key == 18:
                assert isinstance(response, ApiVersionsResponse) and response.error_code == 0
                continue
            partition = response.responses[0].partitions[0]
            assert partition.error_code == 0
            assert partition.high_watermark == RECORDS
            assert _values(partition) == [_value(i) for i in range(RECORDS)]


def test_many_small_pipelined_requests_are_answered_in_order(setup: Setup) -> None:
    count = 500
    request = ApiVersionsRequest(client_software_name="t", client_software_version="1")
    with setup.connect() as sock:
        sock.sendall(b"".join(encode_request(18, 3, request, cid) for cid in range(1, count + 1)))
        answered = []
        for _ in range(count):
            got, response = _recv_response(sock, 18, 3)
            assert response.error_code == 0
            answered.append(got)
    assert answered == list(range(1, count + 1))


def test_a_client_gone_mid_response_is_closed_and_others_are_served(setup: Setup) -> None:
    mark = setup.process.log_size()
    sock = setup.connect(receive_buffer=4096)
    port = sock.getsockname()[1]
    sock.sendall(encode_request(1, 11, _fetch_all(setup.topic), 1))
    assert len(_recv_exact(sock, 8192, piece=4096)) == 8192
    # A reset, not a FIN: the broker's pending writes fail.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()
    with WireClient(setup.ssl_bootstrap, timeout=30, ssl_context=setup.context()) as other:
        partition = other.call(1, 11, _fetch_all(setup.topic)).responses[0].partitions[0]  # type: ignore[attr-defined]
        assert _values(partition) == [_value(i) for i in range(RECORDS)]
    log = _wait_for_log(setup.process, mark, f"peer=127.0.0.1:{port}")
    closed = [line for line in log.splitlines() if "connection closed" in line and f"peer=127.0.0.1:{port}" in line]
    assert len(closed) == 1
    assert "Traceback" not in log and "handler failed" not in log


def _wait_for_log(process: BrokerProcess, mark: int, text: str) -> str:
    """The broker's log since `mark` once it holds `text` (the broker logs as it goes)."""
    deadline = time.monotonic() + 10
    while True:
        log = process.log_since(mark)
        if text in log or time.monotonic() > deadline:
            return log
        time.sleep(0.02)
