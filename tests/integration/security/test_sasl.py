"""SASL listeners on the real broker: PLAIN and OAUTHBEARER with stock clients, refused
credentials, requests before authentication and the pre-authentication frame cap."""

from __future__ import annotations

import base64
import json
import socket
import struct
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.errors import KafkaError as AIOKafkaError
from confluent_kafka import KafkaError, Producer
from kafka import KafkaConsumer, KafkaProducer

from protocol.errors import ErrorCode
from protocol.messages.api_versions_request import ApiVersionsRequest
from protocol.messages.api_versions_response import ApiVersionsResponse
from protocol.messages.create_delegation_token_request import CreatableRenewers, CreateDelegationTokenRequest
from protocol.messages.create_delegation_token_response import CreateDelegationTokenResponse
from protocol.messages.describe_delegation_token_request import DescribeDelegationTokenRequest
from protocol.messages.expire_delegation_token_request import ExpireDelegationTokenRequest
from protocol.messages.metadata_request import MetadataRequest
from protocol.messages.renew_delegation_token_request import RenewDelegationTokenRequest
from protocol.messages.sasl_authenticate_request import SaslAuthenticateRequest
from protocol.messages.sasl_authenticate_response import SaslAuthenticateResponse
from protocol.messages.sasl_handshake_request import SaslHandshakeRequest
from protocol.messages.sasl_handshake_response import SaslHandshakeResponse
from tests.broker_process import BrokerProcess, free_port
from tests.integration.security.confluent_round_trip import commit_and_read_back
from tests.kafka_wire import WireClient, encode_request

PLAIN_JAAS = (
    'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" '
    'user_admin="admin-secret" user_alice="alice-secret";'
)


@dataclass
class SaslBroker:
    process: BrokerProcess
    sasl_port: int

    @property
    def sasl_bootstrap(self) -> str:
        return f"127.0.0.1:{self.sasl_port}"


@pytest.fixture(scope="module")
def sasl_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SaslBroker]:
    root = tmp_path_factory.mktemp("sasl")
    port, sasl_port = free_port(), free_port()
    overrides = {
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}",
        "num.partitions": "1",
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
    }
    process = BrokerProcess(root / "data", overrides, port)
    process.start()
    try:
        yield SaslBroker(process, sasl_port)
    finally:
        process.close()


def _topic() -> str:
    return f"sasl-{uuid.uuid4().hex[:8]}"


def _handshake(client: WireClient, mechanism: str, version: int = 1) -> SaslHandshakeResponse:
    response = client.call(17, version, SaslHandshakeRequest(mechanism=mechanism))
    assert isinstance(response, SaslHandshakeResponse)
    return response


def _authenticate(client: WireClient, token: bytes, version: int = 2) -> SaslAuthenticateResponse:
    response = client.call(36, version, SaslAuthenticateRequest(auth_bytes=token))
    assert isinstance(response, SaslAuthenticateResponse)
    return response


async def test_aiokafka_plain_produce_and_consume(sasl_broker: SaslBroker) -> None:
    topic = _topic()
    auth = {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "PLAIN",
        "sasl_plain_username": "alice",
        "sasl_plain_password": "alice-secret",
    }
    producer = AIOKafkaProducer(bootstrap_servers=sasl_broker.sasl_bootstrap, **auth)
    await producer.start()
    try:
        offsets = [(await producer.send_and_wait(topic, f"p{i}".encode())).offset for i in range(2)]
    finally:
        await producer.stop()
    assert offsets == [0, 1]
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=sasl_broker.sasl_bootstrap, auto_offset_reset="earliest", **auth
    )
    await consumer.start()
    try:
        batch = await consumer.getmany(timeout_ms=10_000, max_records=2)
    finally:
        await consumer.stop()
    assert [(r.offset, r.value) for rs in batch.values() for r in rs] == [(0, b"p0"), (1, b"p1")]


async def test_aiokafka_wrong_password_is_refused(sasl_broker: SaslBroker) -> None:
    producer = AIOKafkaProducer(
        bootstrap_servers=sasl_broker.sasl_bootstrap,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="PLAIN",
        sasl_plain_username="alice",
        sasl_plain_password="wrong",
        request_timeout_ms=5000,
    )
    with pytest.raises(AIOKafkaError):
        await producer.start()
    await producer.stop()


def test_confluent_kafka_plain_transaction(sasl_broker: SaslBroker) -> None:
    topic = _topic()
    auth = {
        "bootstrap.servers": sasl_broker.sasl_bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
        "sasl.username": "admin",
        "sasl.password": "admin-secret",
    }
    assert commit_and_read_back(auth, topic, b"committed") == [b"committed"]


def test_confluent_kafka_unknown_user_is_refused(sasl_broker: SaslBroker) -> None:
    errors: list[KafkaError] = []
    producer = Producer({
        "bootstrap.servers": sasl_broker.sasl_bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
        "sasl.username": "mallory",
        "sasl.password": "x",
        "reconnect.backoff.ms": 2000,
        "error_cb": errors.append,
    })
    deadline = time.monotonic() + 20
    while not errors and time.monotonic() < deadline:
        producer.poll(0.2)
    assert errors and errors[0].code() == KafkaError._AUTHENTICATION
    assert "Authentication failed: Invalid username or password" in errors[0].str()


def test_kafka_python_plain_produce_and_consume(sasl_broker: SaslBroker) -> None:
    topic = _topic()
    auth = {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "PLAIN",
        "sasl_plain_username": "alice",
        "sasl_plain_password": "alice-secret",
    }
    producer = KafkaProducer(bootstrap_servers=sasl_broker.sasl_bootstrap, **auth)
    metadata = producer.send(topic, b"kp").get(timeout=30)
    producer.close()
    assert metadata.offset == 0
    consumer = KafkaConsumer(topic, bootstrap_servers=sasl_broker.sasl_bootstrap, auto_offset_reset="earliest", **auth)
    values: list[tuple[int, bytes]] = []
    try:
        # Polled until the record is there (a loaded machine can take long to connect).
        deadline = time.monotonic() + 60
        while not values and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=1000).values():
                values.extend((m.offset, m.value) for m in records)
    finally:
        consumer.close()
    assert values == [(0, b"kp")]


def test_wire_plain_exchange_and_its_errors(sasl_broker: SaslBroker) -> None:
    with WireClient(sasl_broker.sasl_bootstrap) as client:
        versions = client.call(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
        assert isinstance(versions, ApiVersionsResponse)
        keys = {k.api_key: (k.min_version, k.max_version) for k in versions.api_keys}
        assert keys[17] == (0, 1) and keys[36] == (0, 2)
        handshake = _handshake(client, "PLAIN")
        assert handshake.error_code == 0
        assert handshake.mechanisms == ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"]
        done = _authenticate(client, b"\x00alice\x00alice-secret")
        assert (done.error_code, done.error_message, done.auth_bytes) == (0, None, b"")
        # Authenticated: a second handshake is out of place (no re-authentication here).
        assert _handshake(client, "PLAIN").error_code == ErrorCode.ILLEGAL_SASL_STATE
        client.call(3, 12, MetadataRequest(topics=[]))
    with WireClient(sasl_broker.sasl_bootstrap) as client:
        unsupported = _handshake(client, "GSSAPI")
        assert unsupported.error_code == ErrorCode.UNSUPPORTED_SASL_MECHANISM
        assert client.is_closed_by_peer()
    with WireClient(sasl_broker.sasl_bootstrap) as client:
        assert _handshake(client, "PLAIN").error_code == 0
        refused = _authenticate(client, b"\x00alice\x00nope")
        assert refused.error_code == ErrorCode.SASL_AUTHENTICATION_FAILED
        assert refused.error_message == "Authentication failed: Invalid username or password"
        assert client.is_closed_by_peer()


def test_v0_handshake_then_bare_tokens(sasl_broker: SaslBroker) -> None:
    with WireClient(sasl_broker.sasl_bootstrap) as client:
        assert _handshake(client, "PLAIN", version=0).error_code == 0
        token = b"\x00alice\x00alice-secret"
        client.send_raw(struct.pack(">i", len(token)) + token)
        assert client.recv_frame() == b""
        client.call(3, 12, MetadataRequest(topics=[]))


def test_request_before_authentication_closes_the_connection(sasl_broker: SaslBroker) -> None:
    mark = sasl_broker.process.log_size()
    with WireClient(sasl_broker.sasl_bootstrap) as client:
        client.send(3, 12, MetadataRequest(topics=[]))
        assert client.is_closed_by_peer()
    assert "request before authentication" in sasl_broker.process.log_since(mark)


def test_oversized_frame_before_authentication_is_refused(sasl_broker: SaslBroker) -> None:
    mark = sasl_broker.process.log_size()
    with WireClient(sasl_broker.sasl_bootstrap) as other:
        assert _handshake(other, "PLAIN").error_code == 0
        with WireClient(sasl_broker.sasl_bootstrap) as client:
            # One byte over Kafka's 512 KiB: refused on its size alone, before the body comes.
            client.send_raw(struct.pack(">i", 524288 + 1))
            assert client.is_closed_by_peer()
        # Exactly at the cap the frame is read, then refused for what it is, not its size.
        with WireClient(sasl_broker.sasl_bootstrap) as client:
            body = encode_request(3, 12, MetadataRequest(topics=[]), 7)[4:]
            body += b"\x00" * (524288 - len(body))
            client.send_raw(struct.pack(">i", len(body)) + body)
            assert client.is_closed_by_peer()
        # The other connection, mid-authentication, carries on.
        assert _authenticate(other, b"\x00alice\x00alice-secret").error_code == 0
    log = sasl_broker.process.log_since(mark)
    assert "frame size 524289 outside 1..524288" in log
    assert "request before authentication" in log


def _unsecured_jwt(claims: dict[str, object]) -> bytes:
    def part(doc: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part(claims)}.".encode()


def test_oauthbearer_unsecured_tokens(sasl_broker: SaslBroker) -> None:
    good = _unsecured_jwt({"sub": "bob", "exp": int(time.time()) + 3600, "iat": int(time.time())})
    with WireClient(sasl_broker.sasl_bootstrap) as client:
        assert _handshake(client, "OAUTHBEARER").error_code == 0
        done = _authenticate(client, b"n,,\x01auth=Bearer " + good + b"\x01\x01")
        assert (done.error_code, done.auth_bytes) == (0, b"")
        client.call(3, 12, MetadataRequest(topics=[]))
    expired = _unsecured_jwt({"sub": "bob", "exp": int(time.time()) - 10})
    with WireClient(sasl_broker.sasl_bootstrap) as client:
        assert _handshake(client, "OAUTHBEARER").error_code == 0
        challenge = _authenticate(client, b"n,,\x01auth=Bearer " + expired + b"\x01\x01")
        assert (challenge.error_code, json.loads(challenge.auth_bytes)) == (0, {"status": "invalid_token"})
        failed = _authenticate(client, b"\x01")
        assert failed.error_code == ErrorCode.SASL_AUTHENTICATION_FAILED
        assert failed.error_message == "Authentication failed: the token has expired"
        assert client.is_closed_by_peer()


def test_plaintext_listener_is_untouched(sasl_broker: SaslBroker) -> None:
    with WireClient(sasl_broker.process.bootstrap) as client:
        client.call(3, 12, MetadataRequest(topics=[]))
        assert _handshake(client, "PLAIN").error_code == ErrorCode.ILLEGAL_SASL_STATE
    with socket.create_connection(("127.0.0.1", sasl_broker.sasl_port), timeout=5):
        pass


def test_delegation_tokens_are_off(sasl_broker: SaslBroker) -> None:
    """Kafka's answers without `delegation.token.secret.key`: refused on a PLAINTEXT channel
    (KafkaApis.allowTokenRequests), then DELEGATION_TOKEN_AUTH_DISABLED from its controller."""
    with WireClient(sasl_broker.sasl_bootstrap) as client:
        assert _handshake(client, "PLAIN").error_code == 0
        assert _authenticate(client, b"\x00alice\x00alice-secret").error_code == 0
        created = client.call(38, 3, CreateDelegationTokenRequest(max_lifetime_ms=-1))
        assert isinstance(created, CreateDelegationTokenResponse)
        assert (created.error_code, created.principal_type, created.principal_name,
                created.token_requester_principal_name, created.token_id, created.hmac) == (
            ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, "User", "alice", "alice", "", b"")
        bad_renewer = client.call(38, 3, CreateDelegationTokenRequest(
            renewers=[CreatableRenewers(principal_type="Group", principal_name="g")]))
        assert bad_renewer.error_code == ErrorCode.INVALID_PRINCIPAL_TYPE
        for key, request in ((39, RenewDelegationTokenRequest(hmac=b"\x01")),
                             (40, ExpireDelegationTokenRequest(hmac=b"\x01"))):
            answer = client.call(key, 2, request)
            assert (answer.error_code, answer.expiry_timestamp_ms) == (ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, 0)
        described = client.call(41, 3, DescribeDelegationTokenRequest(owners=None))
        assert (described.error_code, described.tokens) == (ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, [])
    with WireClient(sasl_broker.process.bootstrap) as client:
        refused = client.call(38, 3, CreateDelegationTokenRequest())
        assert (refused.error_code, refused.principal_name, refused.expiry_timestamp_ms) == (
            ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, "ANONYMOUS", -1)
        assert client.call(39, 2, RenewDelegationTokenRequest(hmac=b"\x01")).error_code == (
            ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED)
        assert client.call(41, 3, DescribeDelegationTokenRequest()).error_code == (
            ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED)
