"""SCRAM credentials managed over the wire (KIP-554) and used by stock clients to log in
with SCRAM-SHA-256 and SCRAM-SHA-512; stored salted and hashed, kept across a restart."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.errors import KafkaError as AIOKafkaError
from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)
from kafka import KafkaConsumer, KafkaProducer

from protocol.errors import ErrorCode
from protocol.messages.alter_user_scram_credentials_request import (
    AlterUserScramCredentialsRequest,
    ScramCredentialDeletion,
    ScramCredentialUpsertion,
)
from protocol.messages.alter_user_scram_credentials_response import AlterUserScramCredentialsResponse
from protocol.messages.describe_user_scram_credentials_request import (
    DescribeUserScramCredentialsRequest,
    UserName,
)
from protocol.messages.describe_user_scram_credentials_response import DescribeUserScramCredentialsResponse
from protocol.messages.metadata_request import MetadataRequest
from protocol.messages.metadata_response import MetadataResponse
from protocol.messages.sasl_authenticate_request import SaslAuthenticateRequest
from protocol.messages.sasl_authenticate_response import SaslAuthenticateResponse
from protocol.messages.sasl_handshake_request import SaslHandshakeRequest
from protocol.messages.sasl_handshake_response import SaslHandshakeResponse
from tests.broker_process import BrokerProcess, free_port
from tests.integration.security.confluent_round_trip import commit_and_read_back
from tests.kafka_wire import WireClient


class ScramBroker:
    def __init__(self, root: Path) -> None:
        self.port, self.sasl_port = free_port(), free_port()
        self.process = BrokerProcess(
            root / "data",
            {
                "listeners": f"PLAINTEXT://127.0.0.1:{self.port},SASL_PLAINTEXT://127.0.0.1:{self.sasl_port}",
                "num.partitions": "1",
                "sasl.enabled.mechanisms": "SCRAM-SHA-256,SCRAM-SHA-512",
            },
            self.port,
        )

    @property
    def sasl_bootstrap(self) -> str:
        return f"127.0.0.1:{self.sasl_port}"


@pytest.fixture(scope="module")
def scram_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScramBroker]:
    broker = ScramBroker(tmp_path_factory.mktemp("scram"))
    broker.process.start()
    try:
        yield broker
    finally:
        broker.process.close()


def _add_users(broker: ScramBroker, *creds: tuple[str, ScramMechanism, str]) -> None:
    admin = AdminClient({"bootstrap.servers": broker.process.bootstrap})
    futures = admin.alter_user_scram_credentials([
        UserScramCredentialUpsertion(user, ScramCredentialInfo(mechanism, 4096), password.encode())
        for user, mechanism, password in creds
    ])
    for future in futures.values():
        assert future.result(30) is None


def _user() -> str:
    return f"u{uuid.uuid4().hex[:8]}"


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
async def test_aiokafka_scram_produce_and_consume(scram_broker: ScramBroker, mechanism: str) -> None:
    user, topic = _user(), f"scram-{uuid.uuid4().hex[:8]}"
    kind = ScramMechanism.SCRAM_SHA_256 if mechanism == "SCRAM-SHA-256" else ScramMechanism.SCRAM_SHA_512
    _add_users(scram_broker, (user, kind, "s3cret"))
    auth = {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": mechanism,
        "sasl_plain_username": user,
        "sasl_plain_password": "s3cret",
    }
    producer = AIOKafkaProducer(bootstrap_servers=scram_broker.sasl_bootstrap, **auth)
    await producer.start()
    try:
        assert (await producer.send_and_wait(topic, b"scram")).offset == 0
    finally:
        await producer.stop()
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=scram_broker.sasl_bootstrap, auto_offset_reset="earliest", **auth)
    await consumer.start()
    try:
        batch = await consumer.getmany(timeout_ms=10_000, max_records=1)
    finally:
        await consumer.stop()
    assert [(r.offset, r.value) for rs in batch.values() for r in rs] == [(0, b"scram")]
    wrong = AIOKafkaProducer(bootstrap_servers=scram_broker.sasl_bootstrap, **{**auth, "sasl_plain_password": "nope"})
    with pytest.raises(AIOKafkaError):
        await wrong.start()
    await wrong.stop()


def test_confluent_kafka_scram_512_transaction_and_refusals(scram_broker: ScramBroker) -> None:
    user, topic = _user(), f"scram-{uuid.uuid4().hex[:8]}"
    _add_users(scram_broker, (user, ScramMechanism.SCRAM_SHA_512, "pw-512"))
    auth = {
        "bootstrap.servers": scram_broker.sasl_bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": user,
        "sasl.password": "pw-512",
    }
    assert commit_and_read_back(auth, topic, b"in-txn") == [b"in-txn"]
    # The credential is for SCRAM-SHA-512 only; an unknown user fails the same way.
    for name, mechanism in [(user, "SCRAM-SHA-256"), ("nobody", "SCRAM-SHA-512")]:
        errors: list[KafkaError] = []
        refused = Producer({**auth, "sasl.username": name, "sasl.mechanism": mechanism,
                            "reconnect.backoff.ms": 2000, "error_cb": errors.append})
        deadline = time.monotonic() + 20
        while not errors and time.monotonic() < deadline:
            refused.poll(0.2)
        assert errors and errors[0].code() == KafkaError._AUTHENTICATION
        assert (
            f"Authentication failed during authentication due to invalid credentials with SASL mechanism {mechanism}"
            in errors[0].str()
        )


def test_kafka_python_scram_256(scram_broker: ScramBroker) -> None:
    user, topic = _user(), f"scram-{uuid.uuid4().hex[:8]}"
    _add_users(scram_broker, (user, ScramMechanism.SCRAM_SHA_256, "kp-pw"))
    auth = {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "SCRAM-SHA-256",
        "sasl_plain_username": user,
        "sasl_plain_password": "kp-pw",
    }
    producer = KafkaProducer(bootstrap_servers=scram_broker.sasl_bootstrap, **auth)
    assert producer.send(topic, b"kp").get(timeout=30).offset == 0
    producer.close()
    consumer = KafkaConsumer(topic, bootstrap_servers=scram_broker.sasl_bootstrap, auto_offset_reset="earliest",
                             consumer_timeout_ms=10_000, **auth)
    try:
        assert [(m.offset, m.value) for m in consumer] == [(0, b"kp")]
    finally:
        consumer.close()


def _describe(client: WireClient, *users: str | None) -> DescribeUserScramCredentialsResponse:
    request = DescribeUserScramCredentialsRequest(users=None if users == (None,) else [UserName(u or "") for u in users])
    response = client.call(50, 0, request)
    assert isinstance(response, DescribeUserScramCredentialsResponse)
    return response


def _alter(client: WireClient, request: AlterUserScramCredentialsRequest) -> dict[str, tuple[int, str | None]]:
    response = client.call(51, 0, request)
    assert isinstance(response, AlterUserScramCredentialsResponse)
    return {r.user: (r.error_code, r.error_message) for r in response.results}


def _upsert(name: str, mechanism: int = 1, iterations: int = 4096) -> ScramCredentialUpsertion:
    salt = b"salt-" + name.encode()
    digest = "sha256" if mechanism == 1 else "sha512"
    salted = hashlib.pbkdf2_hmac(digest, b"pw", salt, max(iterations, 1))
    return ScramCredentialUpsertion(name=name, mechanism=mechanism, iterations=iterations, salt=salt, salted_password=salted)


def test_wire_alter_and_describe_rules(tmp_path: Path) -> None:
    broker = ScramBroker(tmp_path)
    broker.process.start()
    try:
        with WireClient(broker.process.bootstrap) as client:
            assert _describe(client, None).results == []
            results = _alter(client, AlterUserScramCredentialsRequest(
                upsertions=[
                    _upsert("alice", 1), _upsert("alice", 2),  # one user twice: refused as a whole
                    _upsert("bob", 2, 8192),
                    _upsert("carol", 1, 4095), _upsert("dave", 1, 16385), _upsert("", 1), _upsert("erin", 3),
                ],
                deletions=[ScramCredentialDeletion(name="frank", mechanism=1)],
            ))
            assert results == {
                "alice": (ErrorCode.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request"),
                "bob": (0, None),
                "carol": (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too few iterations"),
                "dave": (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too many iterations"),
                "": (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"),
                "erin": (ErrorCode.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"),
                "frank": (ErrorCode.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"),
            }
            assert _alter(client, AlterUserScramCredentialsRequest(upsertions=[_upsert("bob", 1)])) == {"bob": (0, None)}
            described = _describe(client, "bob", "alice", "bob")
            assert [(r.user, r.error_code, r.error_message) for r in described.results] == [
                ("bob", ErrorCode.DUPLICATE_RESOURCE,
                 "Cannot describe SCRAM credentials for the same user twice in a single request: bob"),
                ("alice", ErrorCode.RESOURCE_NOT_FOUND, "Attempt to describe a user credential that does not exist: alice"),
            ]
            (bob,) = _describe(client, None).results
            assert (bob.user, bob.error_code) == ("bob", 0)
            assert [(c.mechanism, c.iterations) for c in bob.credential_infos] == [(1, 4096), (2, 8192)]
        # Stored salted and hashed: neither the password nor the salted password is in the file.
        stored = (broker.process.data_dir / "scram-credentials.json").read_bytes()
        salted = _upsert("bob", 1).salted_password
        assert salted not in stored and base64.b64encode(salted) not in stored
        assert {tuple(sorted(entry)) for entry in json.loads(stored)} == {
            ("iterations", "mechanism", "salt", "server_key", "stored_key", "user")
        }
        broker.process.restart()
        with WireClient(broker.process.bootstrap) as client:
            (bob,) = _describe(client, None).results
            assert [(c.mechanism, c.iterations) for c in bob.credential_infos] == [(1, 4096), (2, 8192)]
            results = _alter(client, AlterUserScramCredentialsRequest(deletions=[ScramCredentialDeletion("bob", 1)]))
            assert results == {"bob": (0, None)}
            (bob,) = _describe(client, "bob").results
            assert [(c.mechanism, c.iterations) for c in bob.credential_infos] == [(2, 8192)]
    finally:
        broker.process.close()


def test_deleted_credential_no_longer_logs_in(scram_broker: ScramBroker) -> None:
    user = _user()
    _add_users(scram_broker, (user, ScramMechanism.SCRAM_SHA_256, "gone"))
    admin = AdminClient({"bootstrap.servers": scram_broker.process.bootstrap})
    for future in admin.alter_user_scram_credentials(
        [UserScramCredentialDeletion(user, ScramMechanism.SCRAM_SHA_256)]
    ).values():
        assert future.result(30) is None
    described = admin.describe_user_scram_credentials([user])
    with pytest.raises(Exception, match="does not exist"):
        described[user].result(30)


def _client_final(password: bytes, mechanism: str, client_first_bare: str, server_first: str,
                  nonce: str | None = None) -> bytes:
    """RFC 5802's client proof, computed here so a test can send what a stock client would
    not: another nonce, a replayed or a tampered proof."""
    attrs = dict(item.split("=", 1) for item in server_first.split(","))
    digest = "sha256" if mechanism == "SCRAM-SHA-256" else "sha512"
    salted = hashlib.pbkdf2_hmac(digest, password, base64.b64decode(attrs["s"]), int(attrs["i"]))
    client_key = hmac.new(salted, b"Client Key", digest).digest()
    stored_key = hashlib.new(digest, client_key).digest()
    without_proof = f"c=biws,r={nonce or attrs['r']}"
    signature = hmac.new(stored_key, f"{client_first_bare},{server_first},{without_proof}".encode(), digest).digest()
    proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
    return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()


def _server_first(client: WireClient, user: str, client_nonce: str) -> tuple[str, str]:
    handshake = client.call(17, 1, SaslHandshakeRequest(mechanism="SCRAM-SHA-256"))
    assert isinstance(handshake, SaslHandshakeResponse) and handshake.error_code == 0
    bare = f"n={user},r={client_nonce}"
    first = client.call(36, 2, SaslAuthenticateRequest(auth_bytes=f"n,,{bare}".encode()))
    assert isinstance(first, SaslAuthenticateResponse) and first.error_code == 0
    return bare, bytes(first.auth_bytes).decode()


def _final(client: WireClient, token: bytes) -> SaslAuthenticateResponse:
    response = client.call(36, 2, SaslAuthenticateRequest(auth_bytes=token))
    assert isinstance(response, SaslAuthenticateResponse)
    return response


def test_replayed_and_tampered_proofs_are_refused(scram_broker: ScramBroker) -> None:
    user = _user()
    _add_users(scram_broker, (user, ScramMechanism.SCRAM_SHA_256, "wire-pw"))
    with WireClient(scram_broker.sasl_bootstrap) as first:
        bare, server_first = _server_first(first, user, "fixed-client-nonce")
        recorded = _client_final(b"wire-pw", "SCRAM-SHA-256", bare, server_first)
        assert _final(first, recorded).error_code == 0
    # The same client-final on a new exchange: the server's nonce differs, so it is refused.
    with WireClient(scram_broker.sasl_bootstrap) as replay:
        _server_first(replay, user, "fixed-client-nonce")
        refused = _final(replay, recorded)
        assert refused.error_code == ErrorCode.SASL_AUTHENTICATION_FAILED
        assert replay.is_closed_by_peer()
    with WireClient(scram_broker.sasl_bootstrap) as tamper:
        bare, server_first = _server_first(tamper, user, "another-nonce")
        token = bytearray(_client_final(b"wire-pw", "SCRAM-SHA-256", bare, server_first))
        token[-3] = ord("A") if token[-3] != ord("A") else ord("B")
        assert _final(tamper, bytes(token)).error_code == ErrorCode.SASL_AUTHENTICATION_FAILED
        assert tamper.is_closed_by_peer()
    # Other connections keep working.
    with WireClient(scram_broker.process.bootstrap) as other:
        response = other.call(3, 12, MetadataRequest(topics=[]))
        assert isinstance(response, MetadataResponse) and response.brokers


def test_nonce_must_end_with_the_servers_as_kafka_checks_it(scram_broker: ScramBroker) -> None:
    user = _user()
    _add_users(scram_broker, (user, ScramMechanism.SCRAM_SHA_256, "nonce-pw"))
    # librdkafka 2.0 sends its own nonce before the combined one; Kafka's endsWith accepts it.
    with WireClient(scram_broker.sasl_bootstrap) as prefixed:
        bare, server_first = _server_first(prefixed, user, "cn0nce")
        combined = dict(item.split("=", 1) for item in server_first.split(","))["r"]
        token = _client_final(b"nonce-pw", "SCRAM-SHA-256", bare, server_first, nonce="cn0nce" + combined)
        assert _final(prefixed, token).error_code == 0
    with WireClient(scram_broker.sasl_bootstrap) as suffixed:
        bare, server_first = _server_first(suffixed, user, "cn0nce")
        combined = dict(item.split("=", 1) for item in server_first.split(","))["r"]
        token = _client_final(b"nonce-pw", "SCRAM-SHA-256", bare, server_first, nonce=combined + "x")
        assert _final(suffixed, token).error_code == ErrorCode.SASL_AUTHENTICATION_FAILED
