"""`ssl.cipher.suites` on the real broker, as Kafka reads it: the listed suites of every
protocol version, in the listener's order of preference, and a version with none of them
listed is off."""

from __future__ import annotations

import ssl
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer

from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from tests.broker_process import BrokerProcess, free_port
from tests.integration.security.certs import Pki, make_pki
from tests.kafka_wire import WireClient

# OpenSSL's own TLS 1.3 order puts AES-256-GCM first: a listener preferring AES-128-GCM
# shows that the listed order, not the library's, decides.
PREFER_AES128 = "TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384"
TLS12_ONLY = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"


@dataclass
class SuitesBroker:
    process: BrokerProcess
    pki: Pki
    tls13_port: int
    tls12_port: int


@pytest.fixture(scope="module")
def suites_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SuitesBroker]:
    root = tmp_path_factory.mktemp("suites")
    pki = make_pki(root / "pki")
    port, tls13_port, tls12_port = free_port(), free_port(), free_port()
    overrides = {
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SSL://127.0.0.1:{tls13_port},OLD://127.0.0.1:{tls12_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,OLD:SSL",
        "num.partitions": "1",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(pki.server.keystore),
        "listener.name.ssl.ssl.cipher.suites": PREFER_AES128,
        "listener.name.old.ssl.cipher.suites": TLS12_ONLY,
    }
    process = BrokerProcess(root / "data", overrides, port)
    process.start()
    try:
        yield SuitesBroker(process, pki, tls13_port, tls12_port)
    finally:
        process.close()


def _negotiated(port: int, context: ssl.SSLContext) -> tuple[str, str]:
    """The suite and version a client with `context` agrees on, after a served request."""
    with WireClient(f"127.0.0.1:{port}", timeout=10, ssl_context=context) as client:
        response = client.call(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
        assert isinstance(response, ApiVersionsResponse) and response.error_code == 0
        assert isinstance(client.sock, ssl.SSLSocket)
        cipher = client.sock.cipher()
        assert cipher is not None
        return cipher[0], cipher[1]


def test_the_listed_order_picks_the_tls13_suite(suites_broker: SuitesBroker) -> None:
    context = ssl.create_default_context(cafile=str(suites_broker.pki.ca))
    assert context.get_ciphers()[0]["name"] == "TLS_AES_256_GCM_SHA384"  # the client's first choice
    assert _negotiated(suites_broker.tls13_port, context) == ("TLS_AES_128_GCM_SHA256", "TLSv1.3")


def test_a_list_without_tls13_suites_turns_tls13_off(suites_broker: SuitesBroker) -> None:
    context = ssl.create_default_context(cafile=str(suites_broker.pki.ca))
    assert _negotiated(suites_broker.tls12_port, context) == ("ECDHE-ECDSA-AES128-GCM-SHA256", "TLSv1.2")


def test_a_list_without_tls12_suites_refuses_a_tls12_client(suites_broker: SuitesBroker) -> None:
    context = ssl.create_default_context(cafile=str(suites_broker.pki.ca))
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    with pytest.raises(ssl.SSLError):
        _negotiated(suites_broker.tls13_port, context)
    # The same listener goes on serving TLS 1.3 clients.
    context = ssl.create_default_context(cafile=str(suites_broker.pki.ca))
    assert _negotiated(suites_broker.tls13_port, context)[0] == "TLS_AES_128_GCM_SHA256"


def test_confluent_kafka_produces_and_consumes_with_the_listed_suite(suites_broker: SuitesBroker) -> None:
    topic = f"suites-{uuid.uuid4().hex[:8]}"
    common = {
        "bootstrap.servers": f"127.0.0.1:{suites_broker.tls13_port}",
        "security.protocol": "SSL",
        "ssl.ca.location": str(suites_broker.pki.ca),
    }
    producer = Producer(common)
    values = [f"v{i}".encode() * 300 for i in range(20)]
    for value in values:
        producer.produce(topic, value)
    assert producer.flush(30) == 0
    consumer = Consumer({**common, "group.id": f"g-{topic}", "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    got: list[tuple[int, bytes | None]] = []
    deadline = time.monotonic() + 30
    try:
        while len(got) < len(values) and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is None:
                got.append((msg.offset(), msg.value()))
    finally:
        consumer.close()
    assert got == list(enumerate(values))


@pytest.mark.parametrize(
    "suites, protocols, message",
    [
        ("TLS_AES_128_GCM_SHA256", "TLSv1.2", r"none of \['TLS_AES_128_GCM_SHA256'\] serves ssl\.enabled\.protocols"),
        (TLS12_ONLY, "TLSv1.3", r"serves ssl\.enabled\.protocols"),
        ("TLS_AES_128_GCM_SHA256,TLS_NO_SUCH_SUITE", "TLSv1.2,TLSv1.3", r"ssl\.cipher\.suites: .*No cipher can be selected"),
    ],
)
def test_suites_no_enabled_protocol_can_use_stop_the_broker_at_start(
    tmp_path: Path, suites: str, protocols: str, message: str
) -> None:
    pki = make_pki(tmp_path / "pki")
    port = free_port()
    process = BrokerProcess(tmp_path / "data", {
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SSL://127.0.0.1:{free_port()}",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(pki.server.keystore),
        "ssl.cipher.suites": suites,
        "ssl.enabled.protocols": protocols,
    }, port)
    with pytest.raises(RuntimeError, match=message):
        process.start(timeout=30)
    assert process.proc is None or process.proc.returncode == 2
    process.close()
