"""TLS listeners beside a PLAINTEXT one on the real broker: server authentication (a PEM
keystore file), mutual TLS (inline PEM given per listener), and what happens to clients that
do not speak TLS or bring no certificate."""

from __future__ import annotations

import re
import socket
import ssl
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.helpers import create_ssl_context
from confluent_kafka import Consumer, Producer

from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from tests.broker_process import BrokerProcess, free_port
from tests.integration.security.certs import Pki, make_pki
from tests.kafka_wire import WireClient, encode_request


@dataclass
class TlsBroker:
    process: BrokerProcess
    pki: Pki
    ssl_port: int
    mtls_port: int

    @property
    def ssl_bootstrap(self) -> str:
        return f"127.0.0.1:{self.ssl_port}"

    @property
    def mtls_bootstrap(self) -> str:
        return f"127.0.0.1:{self.mtls_port}"


@pytest.fixture(scope="module")
def tls_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsBroker]:
    root = tmp_path_factory.mktemp("tls")
    pki = make_pki(root / "pki")
    port, ssl_port, mtls_port = free_port(), free_port(), free_port()
    overrides = {
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SSL://127.0.0.1:{ssl_port},MTLS://127.0.0.1:{mtls_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL",
        "num.partitions": "1",
        # Every listener's default: the keystore as one PEM file.
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(pki.server.keystore),
        # MTLS: the keystore and truststore given inline, and client certificates required.
        "listener.name.mtls.ssl.keystore.certificate.chain": pki.server.cert.read_text(),
        "listener.name.mtls.ssl.keystore.key": pki.server.key.read_text(),
        "listener.name.mtls.ssl.truststore.type": "PEM",
        "listener.name.mtls.ssl.truststore.certificates": pki.ca.read_text(),
        "listener.name.mtls.ssl.client.auth": "required",
    }
    process = BrokerProcess(root / "data", overrides, port)
    process.start()
    try:
        yield TlsBroker(process, pki, ssl_port, mtls_port)
    finally:
        process.close()


def _topic() -> str:
    return f"tls-{uuid.uuid4().hex[:8]}"


async def test_aiokafka_produces_and_consumes_over_tls(tls_broker: TlsBroker) -> None:
    topic = _topic()
    context = create_ssl_context(cafile=str(tls_broker.pki.ca))
    producer = AIOKafkaProducer(
        bootstrap_servers=tls_broker.ssl_bootstrap, security_protocol="SSL", ssl_context=context
    )
    await producer.start()
    try:
        offsets = [(await producer.send_and_wait(topic, f"v{i}".encode())).offset for i in range(3)]
    finally:
        await producer.stop()
    assert offsets == [0, 1, 2]
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=tls_broker.ssl_bootstrap,
        security_protocol="SSL",
        ssl_context=context,
        auto_offset_reset="earliest",
    )
    await consumer.start()
    try:
        batch = await consumer.getmany(timeout_ms=10_000, max_records=3)
    finally:
        await consumer.stop()
    records = [r for rs in batch.values() for r in rs]
    assert [(r.offset, r.value) for r in records] == [(0, b"v0"), (1, b"v1"), (2, b"v2")]


def test_confluent_kafka_with_mutual_tls(tls_broker: TlsBroker) -> None:
    topic = _topic()
    pki = tls_broker.pki
    common = {
        "bootstrap.servers": tls_broker.mtls_bootstrap,
        "security.protocol": "SSL",
        "ssl.ca.location": str(pki.ca),
        "ssl.certificate.location": str(pki.client.cert),
        "ssl.key.location": str(pki.client.key),
    }
    mark = tls_broker.process.log_size()
    producer = Producer(common)
    delivered: list[tuple[int, bytes]] = []

    def on_delivery(err: object, msg: object) -> None:
        assert err is None, err
        delivered.append((msg.offset(), msg.value()))  # type: ignore[attr-defined]

    for i in range(2):
        producer.produce(topic, f"m{i}".encode(), on_delivery=on_delivery)
    assert producer.flush(30) == 0
    assert delivered == [(0, b"m0"), (1, b"m1")]
    consumer = Consumer({**common, "group.id": f"g-{topic}", "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    got: list[tuple[int, bytes | None]] = []
    deadline = time.monotonic() + 30
    try:
        while len(got) < 2 and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is None:
                got.append((msg.offset(), msg.value()))
    finally:
        consumer.close()
    assert got == [(0, b"m0"), (1, b"m1")]
    # The principal is the client certificate's subject, as Kafka's principal builder names it.
    assert "User:CN=alice,O=odradek" in tls_broker.process.log_since(mark)


def _api_versions_over(client: WireClient) -> ApiVersionsResponse:
    response = client.call(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
    assert isinstance(response, ApiVersionsResponse)
    return response


def handshake_failures(tls_broker: TlsBroker) -> list[str]:
    """The `reason` of every failed TLS handshake the broker has logged."""
    return re.findall(r"tls handshake failed.*?reason=(\S+)", tls_broker.process.log())


def next_handshake_failure(tls_broker: TlsBroker, seen: int, seconds: float = 10) -> str:
    deadline = time.monotonic() + seconds
    while len(failures := handshake_failures(tls_broker)) <= seen:
        assert time.monotonic() < deadline, "no failed TLS handshake logged"
        time.sleep(0.05)
    return failures[seen]


def test_mutual_tls_refuses_a_client_without_certificate(tls_broker: TlsBroker) -> None:
    seen = len(handshake_failures(tls_broker))
    context = ssl.create_default_context(cafile=str(tls_broker.pki.ca))
    # TLS 1.3 lets the client finish its handshake first: the refusal shows on first use.
    with (
        pytest.raises((ssl.SSLError, ConnectionError, OSError)),
        WireClient(tls_broker.mtls_bootstrap, timeout=10, ssl_context=context) as client,
    ):
        _api_versions_over(client)
    assert next_handshake_failure(tls_broker, seen) == "PEER_DID_NOT_RETURN_A_CERTIFICATE"
    # With its certificate the same client is served.
    context.load_cert_chain(tls_broker.pki.client.cert, tls_broker.pki.client.key)
    with WireClient(tls_broker.mtls_bootstrap, timeout=10, ssl_context=context) as client:
        assert _api_versions_over(client).error_code == 0


def test_plaintext_on_a_tls_port_is_refused_and_other_listeners_keep_working(tls_broker: TlsBroker) -> None:
    seen = len(handshake_failures(tls_broker))
    with WireClient(tls_broker.ssl_bootstrap, timeout=10) as client:
        client.send_raw(encode_request(18, 0, ApiVersionsRequest(), 1))
        received = bytearray()
        try:
            while chunk := client.sock.recv(4096):
                received += chunk
        except ConnectionResetError:
            pass
    # No Kafka response: at most a TLS alert record (content type 21), then the close.
    assert not received or received[0] == 21
    assert next_handshake_failure(tls_broker, seen) == "WRONG_VERSION_NUMBER"
    with WireClient(tls_broker.process.bootstrap) as plain:
        assert _api_versions_over(plain).error_code == 0
    with WireClient(tls_broker.ssl_bootstrap, ssl_context=ssl.create_default_context(cafile=str(tls_broker.pki.ca))) as tls:
        assert _api_versions_over(tls).error_code == 0


def test_a_tls_listener_without_keystore_stops_the_broker_at_start(tmp_path: Path) -> None:
    port = free_port()
    process = BrokerProcess(
        tmp_path / "data", {"listeners": f"PLAINTEXT://127.0.0.1:{port},SSL://127.0.0.1:{free_port()}"}, port
    )
    with pytest.raises(RuntimeError, match=r"needs ssl\.keystore\.location"):
        process.start(timeout=30)
    assert process.proc is None or process.proc.returncode == 2
    process.close()


def test_a_connection_counts_toward_the_limits_before_its_handshake(tmp_path: Path) -> None:
    """Kafka counts a connection when it accepts it, before its TLS handshake: peers that
    open connections and never finish a handshake take up the listener's slots, and a
    slot comes back when such a peer leaves."""
    pki = make_pki(tmp_path / "pki")
    port, ssl_port = free_port(), free_port()
    overrides = {
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SSL://127.0.0.1:{ssl_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(pki.server.keystore),
        "listener.name.ssl.max.connections": "2",
    }
    process = BrokerProcess(tmp_path / "data", overrides, port)
    process.start()
    context = ssl.create_default_context(cafile=str(pki.ca))
    stalled = [socket.create_connection(("127.0.0.1", ssl_port)) for _ in range(2)]
    try:
        mark = process.log_size()
        # Both slots are taken by peers that sent nothing: a TLS client is turned away.
        with pytest.raises((ssl.SSLError, ConnectionError, OSError)), WireClient(
            f"127.0.0.1:{ssl_port}", timeout=10, ssl_context=context
        ) as client:
            _api_versions_over(client)
        assert "listener SSL has the configured maximum of 2 connections" in process.log_since(mark)
        # One leaves: its handshake fails, its slot is given back, and the client is served.
        stalled.pop().close()
        deadline = time.monotonic() + 10
        while True:
            try:
                with WireClient(f"127.0.0.1:{ssl_port}", timeout=10, ssl_context=context) as client:
                    assert _api_versions_over(client).error_code == 0
                break
            except (ssl.SSLError, ConnectionError, OSError):
                assert time.monotonic() < deadline, "the slot of the peer that left never came back"
                time.sleep(0.05)
        assert re.search(r"tls handshake failed.*?listener=SSL", process.log_since(mark))
    finally:
        for sock in stalled:
            sock.close()
        process.close()
