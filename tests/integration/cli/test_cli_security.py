"""The admin CLI on secured listeners of the real broker: `--command-config` files with Kafka
client properties (TLS with PEM stores, mutual TLS, SASL PLAIN, SCRAM-SHA-256/512 and
unsecured OAUTHBEARER over SASL_PLAINTEXT and SASL_SSL), the same from `ODRADEK_*`
variables, and refused logins as one line with exit code 1."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)

from odradek.__main__ import main
from tests.broker_process import BrokerProcess, free_port
from tests.integration.cli.cli_helpers import Run, cli_process
from tests.integration.security.certs import Pki, make_pki

BROKER_PLAIN_JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-plain";'
PASSWORDS = {"PLAIN": "alice-plain", "SCRAM-SHA-256": "alice-256", "SCRAM-SHA-512": "alice-512"}
LISTENERS = ("plaintext", "ssl", "mtls", "sasl_plaintext", "sasl_ssl")


@dataclass
class SecuredBroker:
    process: BrokerProcess
    pki: Pki
    ports: dict[str, int]
    root: Path

    def bootstrap(self, listener: str) -> str:
        return f"127.0.0.1:{self.ports[listener]}"

    def properties(self, case: str, password: str | None = None) -> dict[str, str]:
        """The client properties of one way in (a case of CASES)."""
        trust = {"ssl.truststore.type": "PEM", "ssl.truststore.location": str(self.pki.ca)}
        if case == "ssl":
            return {"security.protocol": "SSL", **trust}
        if case == "ssl-inline":
            # The CA inline; the host name not checked (Kafka's empty algorithm).
            return {"security.protocol": "SSL", "ssl.truststore.type": "PEM",
                    "ssl.truststore.certificates": self.pki.ca.read_text(),
                    "ssl.endpoint.identification.algorithm": ""}
        if case == "mtls":
            return {"security.protocol": "SSL", **trust, "ssl.keystore.type": "PEM",
                    "ssl.keystore.location": str(self.pki.client.keystore)}
        if case == "mtls-inline":
            return {"security.protocol": "SSL", **trust, "ssl.keystore.type": "PEM",
                    "ssl.keystore.certificate.chain": self.pki.client.cert.read_text(),
                    "ssl.keystore.key": self.pki.client.key.read_text()}
        listener, mechanism = case.split(":")
        props = {"security.protocol": listener.upper(), "sasl.mechanism": mechanism}
        if listener == "sasl_ssl":
            props.update(trust)
        if mechanism == "OAUTHBEARER":
            module = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
            props["sasl.jaas.config"] = f'{module} required unsecuredLoginStringClaim_sub="alice";'
        else:
            module = ("org.apache.kafka.common.security.plain.PlainLoginModule" if mechanism == "PLAIN"
                      else "org.apache.kafka.common.security.scram.ScramLoginModule")
            pw = PASSWORDS[mechanism] if password is None else password
            props["sasl.jaas.config"] = f'{module} required username="alice" password="{pw}";'
        return props

    def listener(self, case: str) -> str:
        return {"ssl": "ssl", "ssl-inline": "ssl", "mtls": "mtls", "mtls-inline": "mtls"}.get(case, case.split(":")[0])

    def command_config(self, case: str, password: str | None = None) -> Path:
        """A `--command-config` file for `case`, its multi-line values continued as Kafka's
        documentation writes them."""
        path = self.root / f"{uuid.uuid4().hex[:8]}.properties"
        lines = ["# written by the test"]
        for key, value in self.properties(case, password).items():
            escaped = value.replace("\\", "\\\\").replace("\n", "\\n\\\n    ")
            lines.append(f"{key}={escaped}")
        path.write_text("\n".join(lines) + "\n")
        return path


CASES = ["ssl", "ssl-inline", "mtls", "mtls-inline", "sasl_plaintext:PLAIN", "sasl_plaintext:SCRAM-SHA-256",
         "sasl_plaintext:SCRAM-SHA-512", "sasl_plaintext:OAUTHBEARER", "sasl_ssl:PLAIN", "sasl_ssl:SCRAM-SHA-256",
         "sasl_ssl:SCRAM-SHA-512", "sasl_ssl:OAUTHBEARER"]


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredBroker]:
    root = tmp_path_factory.mktemp("cli-secured")
    pki = make_pki(root / "pki")
    ports = {name: free_port() for name in LISTENERS}
    overrides = {
        "listeners": ",".join(f"{name.upper()}://127.0.0.1:{port}" for name, port in ports.items()),
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,"
                                          "SASL_SSL:SASL_SSL",
        "num.partitions": "1",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(pki.server.keystore),
        "listener.name.mtls.ssl.truststore.type": "PEM",
        "listener.name.mtls.ssl.truststore.location": str(pki.ca),
        "listener.name.mtls.ssl.client.auth": "required",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": BROKER_PLAIN_JAAS,
        "listener.name.sasl_ssl.plain.sasl.jaas.config": BROKER_PLAIN_JAAS,
    }
    process = BrokerProcess(root / "data", overrides, ports["plaintext"])
    process.start()
    try:
        admin = AdminClient({"bootstrap.servers": process.bootstrap})
        # One request per mechanism: Kafka refuses a user named twice in one request.
        for mechanism, password in [(ScramMechanism.SCRAM_SHA_256, PASSWORDS["SCRAM-SHA-256"]),
                                    (ScramMechanism.SCRAM_SHA_512, PASSWORDS["SCRAM-SHA-512"])]:
            upsert = UserScramCredentialUpsertion("alice", ScramCredentialInfo(mechanism, 4096), password.encode())
            for future in admin.alter_user_scram_credentials([upsert]).values():
                assert future.result(30) is None
        yield SecuredBroker(process, pki, ports, root)
    finally:
        process.close()


def _cli(capsys: pytest.CaptureFixture[str], bootstrap: str, config: Path, *args: str) -> Run:
    """`odradek ARGS... --bootstrap-server B --command-config FILE --json`, in process: the
    options after the command, as Kafka's tools are often called."""
    capsys.readouterr()
    code = main([*args, "--bootstrap-server", bootstrap, "--command-config", str(config), "--json"])
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)


@pytest.mark.parametrize("case", CASES)
def test_every_command_on_a_secured_listener(
    capsys: pytest.CaptureFixture[str], secured: SecuredBroker, case: str
) -> None:
    bootstrap, config = secured.bootstrap(secured.listener(case)), secured.command_config(case)
    topic, group = f"sec-{uuid.uuid4().hex[:8]}", f"g-{uuid.uuid4().hex[:8]}"

    def ok(*args: str) -> Any:
        run = _cli(capsys, bootstrap, config, *args)
        assert (run.code, run.err) == (0, ""), args
        return run.json if run.out else None

    health = ok("health")
    assert health["ok"] is True
    # The broker answers with the listener it was asked on.
    assert health["brokers"] == [{"node_id": 1, "host": "127.0.0.1", "port": secured.ports[secured.listener(case)]}]
    assert ok("topics", "create", topic, "--partitions", "2") == {"topic": topic, "created": True}
    assert topic in ok("topics", "list")
    assert [p["partition"] for p in ok("topics", "describe", topic)[0]["partitions"]] == [0, 1]
    assert ok("topics", "alter-config", topic, "--set", "retention.ms=60000") == {
        "topic": topic, "set": {"retention.ms": "60000"}, "deleted": []}
    assert ok("topics", "add-partitions", topic, "--partitions", "3") == {"topic": topic, "partitions": 3}
    assert ok("produce", topic, "--partition", "0", "--value", "a", "--value", "b") == {
        "topic": topic, "partition": 0, "base_offset": 0, "count": 2}
    consumed = ok("consume", topic, "--partition", "0", "--from-beginning", "--max-messages", "2")
    assert [(r["offset"], r["value"]) for r in consumed] == [(0, "a"), (1, "b")]
    # A group's offsets go through its coordinator: a second connection, secured the same way.
    plan = ok("groups", "reset-offsets", group, "--topic", f"{topic}:0", "--to-latest", "--execute")
    assert [(r["partition"], r["new_offset"]) for r in plan["offsets"]] == [(0, 2)]
    assert group in [g["group"] for g in ok("groups", "list")]
    described = ok("groups", "describe", group)
    assert [(o["partition"], o["current_offset"], o["lag"]) for o in described["offsets"]] == [(0, 2, 0)]
    assert ok("groups", "delete", group) == {"deleted": [group]}
    # No transactions on this broker; describing one asks its coordinator (another connection).
    assert ok("transactions", "list") == []
    assert ok("transactions", "find-hanging", "--topic", topic) == []
    tid = f"tx-{uuid.uuid4().hex[:8]}"
    run = _cli(capsys, bootstrap, config, "transactions", "describe", "--transactional-id", tid)
    assert (run.code, run.out, run.err) == (1, "", f"Error: transactional id {tid} does not exist\n")
    # The CLI's records carry no producer id: the leader keeps no producer state for them.
    assert ok("producers", "describe", "--topic", topic, "--partition", "0") == []
    user = f"u-{uuid.uuid4().hex[:8]}"
    assert ok("quotas", "alter", "--user", user, "--add-config", "consumer_byte_rate=2048") == {
        "entity": {"user": user}, "set": {"consumer_byte_rate": 2048.0}, "deleted": []}
    assert ok("quotas", "describe", "--user", user) == [
        {"entity": {"user": user}, "quotas": {"consumer_byte_rate": 2048.0}}]
    assert ok("records", "delete-before", "--topic", topic, "--partition", "0", "--offset", "1") == [
        {"topic": topic, "partition": 0, "low_watermark": 1}]
    # Kafka's other tools (docs/cli.md), each a round trip on this listener.
    assert ok("configs", "--alter", "--topic", topic, "--add-config", "retention.ms=120000")["set"] == {
        "retention.ms": "120000"}
    assert [(c["name"], c["value"]) for c in ok("configs", "--describe", "--topic", topic)[0]["configs"]] == [
        ("retention.ms", "120000")]
    assert [f["feature"] for f in ok("features", "describe")] == [
        "group.version", "kraft.version", "metadata.version", "share.version", "transaction.version"]
    assert ok("get-offsets", "--topic", topic) == [{"topic": topic, "partition": p, "offset": o}
                                                   for p, o in ((0, 2), (1, 0), (2, 0))]
    dirs = ok("log-dirs", "describe", "--topic-list", topic)
    assert sorted(p["partition"] for p in dirs["brokers"][0]["logDirs"][0]["partitions"]) == [
        f"{topic}-{p}" for p in range(3)]
    assert ok("perf", "produce", "--topic", topic, "--num-records", "50", "--record-size", "10",
              "--throughput", "-1")["records"] == 50
    assert ok("perf", "consume", "--topic", topic, "--messages", "51", "--group", group)["records"] == 51
    assert ok("leader-election", "--election-type", "preferred", "--topic", topic, "--partition", "0")[
        "results"][0]["error"] == "ELECTION_NOT_NEEDED"
    assert ok("reassign-partitions", "--list") == []
    # No authorizer on this broker: Kafka's answer to an ACL request then.
    run = _cli(capsys, bootstrap, config, "acls", "--list")
    assert (run.code, run.out) == (1, "") and "SECURITY_DISABLED" in run.err
    assert ok("topics", "delete", topic) == {"deleted": [topic]}


@pytest.mark.parametrize("case", ["sasl_plaintext:PLAIN", "sasl_plaintext:SCRAM-SHA-256", "sasl_ssl:SCRAM-SHA-512"])
def test_a_wrong_password_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], secured: SecuredBroker, case: str
) -> None:
    bootstrap = secured.bootstrap(secured.listener(case))
    run = _cli(capsys, bootstrap, secured.command_config(case, password="wrong"), "topics", "list")
    mechanism = case.split(":")[1]
    reason = ("Invalid username or password" if mechanism == "PLAIN" else
              f"Authentication failed during authentication due to invalid credentials with SASL mechanism {mechanism}")
    if mechanism == "PLAIN":
        reason = f"Authentication failed: {reason}"
    assert (run.code, run.out, run.err) == (
        1, "", f"Error: {bootstrap} refused the {mechanism} login: SASL_AUTHENTICATION_FAILED: {reason}\n")
    # The right password still gets in.
    assert _cli(capsys, bootstrap, secured.command_config(case), "topics", "list").code == 0


def test_environment_variables_through_the_odradek_command(secured: SecuredBroker) -> None:
    """ODRADEK_SECURITY_PROTOCOL and its ODRADEK_SSL_*/ODRADEK_SASL_* companions, as a
    container's operator sets them; options after the command."""
    props = secured.properties("sasl_ssl:SCRAM-SHA-512")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ODRADEK_")}
    env.update({"ODRADEK_" + k.upper().replace(".", "_"): v for k, v in props.items()})
    env["ODRADEK_BOOTSTRAP_SERVER"] = secured.bootstrap("sasl_ssl")
    run = cli_process("health", env=env)
    assert run.code == 0 and run.out.startswith("OK: 1 broker(s), cluster "), run.err
    # A --command-config file overrides the variables (here: a wrong password).
    wrong = secured.command_config("sasl_ssl:SCRAM-SHA-512", password="wrong")
    run = cli_process("topics", "list", "--command-config", str(wrong), env=env)
    assert (run.code, run.out) == (1, "") and run.err.count("\n") == 1
    assert run.err.startswith(f"Error: {secured.bootstrap('sasl_ssl')} refused the SCRAM-SHA-512 login: ")
    # Without ODRADEK_SECURITY_PROTOCOL the others are the broker's, not the CLI's: a plain client.
    del env["ODRADEK_SECURITY_PROTOCOL"]
    env["ODRADEK_BOOTSTRAP_SERVER"] = secured.bootstrap("plaintext")
    run = cli_process("health", env=env)
    assert run.code == 0 and run.out.startswith("OK: 1 broker(s), cluster "), run.err


def test_tls_failures_are_one_line_and_exit_1(capsys: pytest.CaptureFixture[str], secured: SecuredBroker) -> None:
    other_ca = make_pki(secured.root / f"other-{uuid.uuid4().hex[:8]}").ca
    config = secured.root / "other-ca.properties"
    config.write_text(f"security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={other_ca}\n")
    run = _cli(capsys, secured.bootstrap("ssl"), config, "topics", "list")
    assert (run.code, run.out, run.err) == (1, "", f"Error: cannot connect to {secured.bootstrap('ssl')}: its "
                                                   "certificate does not verify: unable to get local issuer certificate\n")

    # Mutual TLS without a client certificate: TLS 1.3 tells the client on its first read,
    # as the broker's alert or as the connection closed, whichever the client sees first.
    mtls, hint = secured.bootstrap("mtls"), ("(is the listener's security.protocol SSL? does it require a client "
                                             "certificate? see --command-config)")
    run = _cli(capsys, mtls, secured.command_config("ssl"), "topics", "list")
    assert (run.code, run.out) == (1, "")
    assert run.err in (f"Error: connection to {mtls} failed: TLS: TLSV13_ALERT_CERTIFICATE_REQUIRED {hint}\n",
                       f"Error: {mtls} closed the connection {hint}\n")

    # A TLS client on a plaintext listener.
    run = _cli(capsys, secured.bootstrap("plaintext"), secured.command_config("ssl"), "topics", "list")
    assert (run.code, run.out) == (1, "") and run.err.count("\n") == 1
    assert run.err.startswith(f"Error: cannot connect to {secured.bootstrap('plaintext')}: TLS handshake failed: ")
    assert run.err.endswith(f" {hint}\n")

    # A SASL client on a listener without SASL.
    run = _cli(capsys, secured.bootstrap("plaintext"), secured.command_config("sasl_plaintext:PLAIN"), "health")
    assert (run.code, run.out, run.err) == (
        1, "", f"Error: {secured.bootstrap('plaintext')} refused SASL mechanism PLAIN: ILLEGAL_SASL_STATE "
               "(its mechanisms: none)\n")


@pytest.mark.parametrize("listener", ["ssl", "sasl_plaintext", "sasl_ssl"])
def test_a_plaintext_client_on_a_secured_listener(secured: SecuredBroker, listener: str) -> None:
    """Through the `odradek` command: the listener closes the connection, said in one line."""
    address = secured.bootstrap(listener)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ODRADEK_")}
    run = cli_process("topics", "list", "--bootstrap-server", address, "--timeout", "5", env=env)
    assert (run.code, run.out, run.err) == (
        1, "", f"Error: {address} closed the connection (is the listener's security.protocol PLAINTEXT? "
               "see --command-config)\n")


@pytest.mark.parametrize(("text", "error"), [
    ("security.protocol=TLS\n", "security.protocol TLS is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"),
    ("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\n",
     "sasl.mechanism GSSAPI is not supported (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER)"),
    ("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n", "sasl.mechanism PLAIN needs sasl.jaas.config"),
    ("security.protocol=SSL\nssl.truststore.type=JKS\nssl.truststore.location=/x.jks\n",
     "ssl.truststore.type JKS is not supported: give the store as PEM"),
    ("security.protocol=SSL\nssl.truststore.location=/no/such/ca.pem\n",
     "cannot read /no/such/ca.pem: No such file or directory"),
])
def test_bad_properties_are_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], secured: SecuredBroker, text: str, error: str
) -> None:
    config = secured.root / f"{uuid.uuid4().hex[:8]}.properties"
    config.write_text(text)
    run = _cli(capsys, secured.bootstrap("plaintext"), config, "health")
    assert (run.code, run.out, run.err) == (1, "", f"Error: {error}\n")
    run = _cli(capsys, secured.bootstrap("plaintext"), secured.root / "missing.properties", "health")
    assert (run.code, run.out, run.err) == (
        1, "", f"Error: cannot read {secured.root / 'missing.properties'}: No such file or directory\n")
