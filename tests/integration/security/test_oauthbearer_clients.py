"""OAUTHBEARER with unsecured JWTs from each stock client: a plain produce, a transaction and a
read_committed consume, as the authenticated principal."""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Iterator

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.abc import AbstractTokenProvider as AIOTokenProvider
from kafka import KafkaConsumer, KafkaProducer
from kafka.net.sasl.oauth import AbstractTokenProvider

from tests.broker_process import BrokerProcess, free_port
from tests.integration.security.confluent_round_trip import commit_and_read_back


@pytest.fixture(scope="module")
def oauth_bootstrap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BrokerProcess, str]]:
    root = tmp_path_factory.mktemp("oauth")
    port, sasl_port = free_port(), free_port()
    overrides = {
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}",
        "num.partitions": "1",
        "sasl.enabled.mechanisms": "OAUTHBEARER",
    }
    process = BrokerProcess(root / "data", overrides, port)
    process.start()
    try:
        yield process, f"127.0.0.1:{sasl_port}"
    finally:
        process.close()


def unsecured_jwt(sub: str, lifetime_s: int = 3600) -> str:
    def part(doc: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=")

    now = int(time.time())
    return f"{part({'alg': 'none'})}.{part({'sub': sub, 'iat': now, 'exp': now + lifetime_s})}."


def _topic() -> str:
    return f"oauth-{uuid.uuid4().hex[:8]}"


def _authenticated_as(process: BrokerProcess, mark: int, user: str) -> bool:
    return f"mechanism=OAUTHBEARER principal=User:{user} " in process.log_since(mark)


class _AioTokens(AIOTokenProvider):
    async def token(self) -> str:
        return unsecured_jwt("aio-user")


async def test_aiokafka_oauthbearer_produce_transaction_consume(oauth_bootstrap: tuple[BrokerProcess, str]) -> None:
    process, bootstrap = oauth_bootstrap
    topic, mark = _topic(), process.log_size()
    auth = {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "OAUTHBEARER",
            "sasl_oauth_token_provider": _AioTokens()}
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, transactional_id=f"tx-{topic}", **auth)
    await producer.start()
    try:
        async with producer.transaction():
            await producer.send_and_wait(topic, b"in-txn")
    finally:
        await producer.stop()
    plain = AIOKafkaProducer(bootstrap_servers=bootstrap, **auth)
    await plain.start()
    try:
        await plain.send_and_wait(topic, b"plain")
    finally:
        await plain.stop()
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                                isolation_level="read_committed", **auth)
    await consumer.start()
    got: list[bytes | None] = []
    try:
        deadline = time.monotonic() + 20
        while len(got) < 2 and time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=1000)
            got += [r.value for rs in batch.values() for r in rs]
    finally:
        await consumer.stop()
    # The commit marker takes offset 1, the plain record comes after it.
    assert got == [b"in-txn", b"plain"]
    assert _authenticated_as(process, mark, "aio-user")


def test_confluent_kafka_oauthbearer_produce_transaction_consume(oauth_bootstrap: tuple[BrokerProcess, str]) -> None:
    process, bootstrap = oauth_bootstrap
    topic, mark = _topic(), process.log_size()
    auth = {
        "bootstrap.servers": bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "OAUTHBEARER",
        # librdkafka's own unsecured JWT: alg none, sub from `principal`.
        "enable.sasl.oauthbearer.unsecure.jwt": True,
        "sasl.oauthbearer.config": "principal=rdk-user",
    }
    assert commit_and_read_back(auth, topic, b"in-txn", b"plain") == [b"in-txn", b"plain"]
    assert _authenticated_as(process, mark, "rdk-user")


class _Tokens(AbstractTokenProvider):
    def token(self) -> str:
        return unsecured_jwt("kp-user")


def test_kafka_python_oauthbearer_produce_transaction_consume(oauth_bootstrap: tuple[BrokerProcess, str]) -> None:
    process, bootstrap = oauth_bootstrap
    topic, mark = _topic(), process.log_size()
    auth = {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "OAUTHBEARER",
            "sasl_oauth_token_provider": _Tokens()}
    producer = KafkaProducer(bootstrap_servers=bootstrap, transactional_id=f"tx-{topic}", **auth)
    try:
        producer.init_transactions()
        producer.begin_transaction()
        producer.send(topic, b"in-txn")
        producer.commit_transaction()
    finally:
        producer.close()
    plain = KafkaProducer(bootstrap_servers=bootstrap, **auth)
    try:
        assert plain.send(topic, b"plain").get(timeout=30).offset == 2
    finally:
        plain.close()
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                             isolation_level="read_committed", **auth)
    got: list[tuple[int, bytes]] = []
    deadline = time.monotonic() + 20
    try:
        while len(got) < 2 and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=500).values():
                got += [(r.offset, r.value) for r in records]
    finally:
        consumer.close()
    assert got == [(0, b"in-txn"), (2, b"plain")]
    assert _authenticated_as(process, mark, "kp-user")
