"""kcat (librdkafka's command-line client) on every secured listener: TLS with server
authentication and mutual TLS, SASL_SSL with PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and
OAUTHBEARER (librdkafka's unsecured JWT); each produces in a transaction and outside one, and
consumes read_committed. Wrong passwords and a missing client certificate are refused."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)

from tests.broker_process import BrokerProcess, free_port
from tests.integration.security.certs import Pki, make_pki

KCAT = shutil.which("kcat")
pytestmark = pytest.mark.skipif(KCAT is None, reason="kcat is not installed")

PLAIN_JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";'


@dataclass
class KcatBroker:
    process: BrokerProcess
    pki: Pki
    ports: dict[str, int]

    def settings(self, case: str) -> list[str]:
        """kcat's `-b` and `-X` options for one way of connecting."""
        ca = f"ssl.ca.location={self.pki.ca}"
        if case == "ssl":
            return self.on("ssl", "security.protocol=SSL", ca)
        if case == "mtls":
            return self.on("mtls", "security.protocol=SSL", ca, f"ssl.certificate.location={self.pki.client.cert}",
                            f"ssl.key.location={self.pki.client.key}")
        sasl = ["security.protocol=SASL_SSL", ca, f"sasl.mechanism={case}"]
        if case == "OAUTHBEARER":
            return self.on("sasl_ssl", *sasl, "enable.sasl.oauthbearer.unsecure.jwt=true",
                            "sasl.oauthbearer.config=principal=alice")
        return self.on("sasl_ssl", *sasl, "sasl.username=alice", f"sasl.password={PASSWORDS[case]}")

    def on(self, listener: str, *properties: str) -> list[str]:
        options = ["-b", f"127.0.0.1:{self.ports[listener]}"]
        for p in properties:
            options += ["-X", p]
        return options


PASSWORDS = {"PLAIN": "alice-secret", "SCRAM-SHA-256": "scram-256-pw", "SCRAM-SHA-512": "scram-512-pw"}


@pytest.fixture(scope="module")
def kcat_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KcatBroker]:
    root = tmp_path_factory.mktemp("kcat")
    pki = make_pki(root / "pki")
    ports = {name: free_port() for name in ("plaintext", "ssl", "mtls", "sasl_ssl")}
    overrides = {
        "listeners": ",".join(f"{name.upper()}://127.0.0.1:{port}" for name, port in ports.items()),
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_SSL:SASL_SSL",
        "num.partitions": "1",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(pki.server.keystore),
        "listener.name.mtls.ssl.truststore.type": "PEM",
        "listener.name.mtls.ssl.truststore.location": str(pki.ca),
        "listener.name.mtls.ssl.client.auth": "required",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER",
        "listener.name.sasl_ssl.plain.sasl.jaas.config": PLAIN_JAAS,
    }
    process = BrokerProcess(root / "data", overrides, ports["plaintext"])
    process.start()
    try:
        admin = AdminClient({"bootstrap.servers": process.bootstrap})
        # One request per mechanism: Kafka refuses a user named twice in one request.
        for mechanism, password in [(ScramMechanism.SCRAM_SHA_256, b"scram-256-pw"),
                                    (ScramMechanism.SCRAM_SHA_512, b"scram-512-pw")]:
            upsert = UserScramCredentialUpsertion("alice", ScramCredentialInfo(mechanism, 4096), password)
            for future in admin.alter_user_scram_credentials([upsert]).values():
                assert future.result(30) is None
        yield KcatBroker(process, pki, ports)
    finally:
        process.close()


def kcat(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    assert KCAT is not None
    return subprocess.run([KCAT, *args], input=stdin, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("case", ["ssl", "mtls", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"])
def test_kcat_produces_in_a_transaction_and_consumes(kcat_broker: KcatBroker, case: str) -> None:
    topic = f"kcat-{uuid.uuid4().hex[:8]}"
    options = kcat_broker.settings(case)
    mark = kcat_broker.process.log_size()
    txn = kcat(*options, "-X", f"transactional.id=tx-{topic}", "-P", "-t", topic, stdin="a\nb\n")
    assert txn.returncode == 0, txn.stderr
    assert "Transaction successfully committed" in txn.stderr
    plain = kcat(*options, "-P", "-t", topic, stdin="c\n")
    assert plain.returncode == 0, plain.stderr
    consumed = kcat(*options, "-X", "isolation.level=read_committed", "-C", "-t", topic, "-o", "beginning", "-e",
                    "-f", "%o %s\\n")
    assert consumed.returncode == 0, consumed.stderr
    # Offset 2 is the transaction's commit marker.
    assert consumed.stdout == "0 a\n1 b\n3 c\n"
    log = kcat_broker.process.log_since(mark)
    if case == "mtls":
        assert "principal='User:CN=alice,O=odradek'" in log
    elif case != "ssl":
        assert f"mechanism={case} principal=User:alice " in log


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_kcat_wrong_password_is_refused(kcat_broker: KcatBroker, mechanism: str) -> None:
    mark = kcat_broker.process.log_size()
    options = [o.replace(PASSWORDS[mechanism], "wrong") for o in kcat_broker.settings(mechanism)]
    refused = kcat(*options, "-L", "-m", "3")
    assert refused.returncode != 0
    assert "SASL authentication error: Authentication failed" in refused.stderr
    assert "authentication failed" in kcat_broker.process.log_since(mark)
    # The listener keeps serving the right password.
    assert kcat(*kcat_broker.settings(mechanism), "-L", "-m", "10").returncode == 0


def test_kcat_without_a_client_certificate_is_refused_on_mutual_tls(kcat_broker: KcatBroker) -> None:
    no_certificate = kcat_broker.on("mtls", "security.protocol=SSL", f"ssl.ca.location={kcat_broker.pki.ca}")
    assert kcat(*no_certificate, "-L", "-m", "3").returncode != 0
    assert kcat(*kcat_broker.settings("mtls"), "-L", "-m", "10").returncode == 0
