"""KIP-368 re-authentication on the real broker: the session lifetime SaslAuthenticate tells,
the connection closed at its first request past it, re-authentication on the same connection
(same principal and mechanism only), and stock clients that re-authenticate while producing."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, Producer
from kafka import KafkaProducer

from protocol.errors import ErrorCode
from protocol.messages.metadata_request import MetadataRequest
from protocol.messages.metadata_response import MetadataResponse
from protocol.messages.sasl_authenticate_request import SaslAuthenticateRequest
from protocol.messages.sasl_authenticate_response import SaslAuthenticateResponse
from protocol.messages.sasl_handshake_request import SaslHandshakeRequest
from protocol.messages.sasl_handshake_response import SaslHandshakeResponse
from tests.broker_process import BrokerProcess, free_port
from tests.kafka_wire import WireClient

PLAIN_JAAS = (
    'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" '
    'user_admin="admin-secret" user_alice="alice-secret";'
)
LIFETIME_MS = 2000


@pytest.fixture(scope="module")
def reauth_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BrokerProcess, str]]:
    root = tmp_path_factory.mktemp("reauth")
    port, sasl_port = free_port(), free_port()
    overrides = {
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}",
        "num.partitions": "1",
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
        "connections.max.reauth.ms": str(LIFETIME_MS),
        # Per mechanism, as Kafka's listener.name.<l>.<mechanism>. prefix allows.
        "listener.name.sasl_plaintext.scram-sha-256.connections.max.reauth.ms": "0",
    }
    process = BrokerProcess(root / "data", overrides, port)
    process.start()
    try:
        yield process, f"127.0.0.1:{sasl_port}"
    finally:
        process.close()


def _plain(client: WireClient, user: str, password: str, mechanism: str = "PLAIN") -> SaslAuthenticateResponse:
    handshake = client.call(17, 1, SaslHandshakeRequest(mechanism=mechanism))
    assert isinstance(handshake, SaslHandshakeResponse) and handshake.error_code == 0
    response = client.call(36, 2, SaslAuthenticateRequest(auth_bytes=f"\x00{user}\x00{password}".encode()))
    assert isinstance(response, SaslAuthenticateResponse)
    return response


def _metadata(client: WireClient) -> MetadataResponse:
    response = client.call(3, 12, MetadataRequest(topics=[]))
    assert isinstance(response, MetadataResponse)
    return response


def test_session_lifetime_is_told_and_enforced(reauth_broker: tuple[BrokerProcess, str]) -> None:
    process, bootstrap = reauth_broker
    with WireClient(bootstrap) as client:
        started = time.monotonic()
        answer = _plain(client, "alice", "alice-secret")
        assert (answer.error_code, answer.session_lifetime_ms) == (0, LIFETIME_MS)
        assert _metadata(client).brokers
        mark = process.log_size()
        # Past the lifetime, the next request closes the connection unanswered.
        time.sleep(max(0.0, LIFETIME_MS / 1000 + 0.3 - (time.monotonic() - started)))
        client.send(3, 12, MetadataRequest(topics=[]))
        assert client.is_closed_by_peer()
    assert "session expired" in process.log_since(mark)


def test_reauthentication_keeps_the_connection(reauth_broker: tuple[BrokerProcess, str]) -> None:
    _, bootstrap = reauth_broker
    with WireClient(bootstrap) as client:
        assert _plain(client, "alice", "alice-secret").error_code == 0
        time.sleep(1.2)
        again = _plain(client, "alice", "alice-secret")
        assert (again.error_code, again.session_lifetime_ms) == (0, LIFETIME_MS)
        # The new session runs from the re-authentication: still open past the first one's end.
        time.sleep(1.2)
        assert _metadata(client).brokers


def test_reauthentication_as_another_principal_closes(reauth_broker: tuple[BrokerProcess, str]) -> None:
    _, bootstrap = reauth_broker
    with WireClient(bootstrap) as client:
        assert _plain(client, "alice", "alice-secret").error_code == 0
        refused = _plain(client, "admin", "admin-secret")
        assert refused.error_code == ErrorCode.SASL_AUTHENTICATION_FAILED
        assert refused.error_message == "Cannot change principals during re-authentication from User:alice: User:admin"
        assert client.is_closed_by_peer()


def test_reauthentication_with_another_mechanism_closes(reauth_broker: tuple[BrokerProcess, str]) -> None:
    _, bootstrap = reauth_broker
    with WireClient(bootstrap) as client:
        assert _plain(client, "alice", "alice-secret").error_code == 0
        handshake = client.call(17, 1, SaslHandshakeRequest(mechanism="SCRAM-SHA-256"))
        assert isinstance(handshake, SaslHandshakeResponse) and handshake.error_code == 0
        refused = client.call(36, 2, SaslAuthenticateRequest(auth_bytes=b"n,,n=alice,r=abc"))
        assert isinstance(refused, SaslAuthenticateResponse)
        assert refused.error_code == ErrorCode.SASL_AUTHENTICATION_FAILED
        assert refused.error_message == (
            "SASL mechanism 'SCRAM-SHA-256' requested by client is not supported for re-authentication of mechanism 'PLAIN'"
        )
        assert client.is_closed_by_peer()


def test_second_reauthentication_within_a_second_is_illegal(reauth_broker: tuple[BrokerProcess, str]) -> None:
    _, bootstrap = reauth_broker
    with WireClient(bootstrap) as client:
        assert _plain(client, "alice", "alice-secret").error_code == 0
        assert _plain(client, "alice", "alice-secret").error_code == 0
        # Re-authentication begins once a second at most (Kafka's KafkaChannel): a handshake
        # sooner is answered as on any authenticated connection, which stays usable.
        handshake = client.call(17, 1, SaslHandshakeRequest(mechanism="PLAIN"))
        assert isinstance(handshake, SaslHandshakeResponse)
        assert handshake.error_code == ErrorCode.ILLEGAL_SASL_STATE
        assert _metadata(client).brokers


def _produce_across_reauthentications(config: dict[str, str], topic: str, seconds: float) -> list[bytes]:
    producer = Producer(config)
    sent: list[bytes] = []
    errors: list[str] = []

    def delivered(err: object, _msg: object) -> None:
        if err is not None:
            errors.append(str(err))

    deadline = time.monotonic() + seconds
    i = 0
    while time.monotonic() < deadline:
        value = f"r{i}".encode()
        producer.produce(topic, value, on_delivery=delivered)
        sent.append(value)
        i += 1
        producer.poll(0.1)
    assert producer.flush(30) == 0
    assert errors == []
    return sent


def test_confluent_kafka_reauthenticates_and_loses_nothing(reauth_broker: tuple[BrokerProcess, str]) -> None:
    process, bootstrap = reauth_broker
    topic = f"reauth-{uuid.uuid4().hex[:8]}"
    auth = {
        "bootstrap.servers": bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
        "sasl.username": "alice",
        "sasl.password": "alice-secret",
    }
    mark = process.log_size()
    sent = _produce_across_reauthentications({**auth, "acks": "all", "enable.idempotence": "true"}, topic, 7.0)
    log = process.log_since(mark)
    # Every session of 2 s over 7 s: librdkafka re-authenticated on the same connections (a
    # client late to do so on a loaded machine is closed and reconnects; nothing is lost).
    assert log.count("re-authentication started") >= 3
    consumer = Consumer({**auth, "group.id": f"g-{topic}", "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    got: list[bytes | None] = []
    deadline = time.monotonic() + 30
    try:
        while len(got) < len(sent) and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                got.append(msg.value())
    finally:
        consumer.close()
    assert got == sent


def test_kafka_python_reauthenticates(reauth_broker: tuple[BrokerProcess, str]) -> None:
    process, bootstrap = reauth_broker
    topic = f"reauth-{uuid.uuid4().hex[:8]}"
    mark = process.log_size()
    producer = KafkaProducer(
        bootstrap_servers=bootstrap,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="PLAIN",
        sasl_plain_username="alice",
        sasl_plain_password="alice-secret",
    )
    try:
        offsets = []
        for i in range(10):
            offsets.append(producer.send(topic, f"k{i}".encode()).get(timeout=10).offset)
            time.sleep(0.5)
    finally:
        producer.close()
    assert offsets == list(range(10))
    log = process.log_since(mark)
    assert log.count("re-authentication started") >= 1
