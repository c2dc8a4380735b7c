"""`odradek configs` (kafka-configs.sh) against a real broker of the module's own (its
dynamic configs are changed here): topics, a broker and the brokers' default, groups,
client/user/ip quotas in Kafka's text, and SCRAM credentials that a SCRAM login then uses."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from odradek.__main__ import main
from tests.broker_process import BrokerProcess, free_port
from tests.integration.cli.cli_helpers import Run
from tests.names import unique

Cli = Callable[..., Run]


@dataclass
class ScramBroker:
    process: BrokerProcess
    sasl_port: int


@pytest.fixture(scope="module")
def scram_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScramBroker]:
    port, sasl_port = free_port(), free_port()
    process = BrokerProcess(tmp_path_factory.mktemp("cli-configs") / "data", {
        "listeners": f"PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}",
        "sasl.enabled.mechanisms": "SCRAM-SHA-256,SCRAM-SHA-512",
    }, port)
    process.start()
    yield ScramBroker(process, sasl_port)
    process.stop()


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], scram_broker: ScramBroker) -> Cli:
    def go(*args: str, as_json: bool = True, bootstrap: str | None = None, config: Path | None = None) -> Run:
        capsys.readouterr()
        code = main(["--bootstrap-server", bootstrap or scram_broker.process.bootstrap,
                     *(["--command-config", str(config)] if config else []), *(["--json"] if as_json else []), *args])
        out = capsys.readouterr()
        return Run(code, out.out, out.err)
    return go


def test_topic_configs(run: Cli) -> None:
    topic = unique("cfg-topic")
    assert run("topics", "create", topic, "--partitions", "1").code == 0
    r = run("configs", "--alter", "--entity-type", "topics", "--entity-name", topic,
            "--add-config", "retention.ms=86400000,cleanup.policy=[compact,delete]", as_json=False)
    assert (r.code, r.out) == (0, f"Completed updating config for topic {topic}.\n")
    r = run("configs", "--describe", "--entity-type", "topics", "--entity-name", topic, as_json=False)
    assert (r.code, r.out.splitlines()) == (0, [
        f"Dynamic configs for topic {topic} are:",
        "  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, "
        "DEFAULT_CONFIG:log.cleanup.policy=delete}",
        "  retention.ms=86400000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=86400000}",
    ])

    r = run("configs", "--alter", "--topic", topic, "--delete-config", "cleanup.policy")
    assert (r.code, r.json) == (0, {"entities": [{"entity_type": "topics", "entity_name": topic}], "set": {},
                                    "deleted": ["cleanup.policy"]})
    r = run("configs", "--describe", "--topic", topic)
    assert [(c["name"], c["value"], c["source"]) for c in r.json[0]["configs"]] == [
        ("retention.ms", "86400000", "DYNAMIC_TOPIC_CONFIG")]
    every = run("configs", "--describe", "--topic", topic, "--all").json[0]["configs"]
    assert {"cleanup.policy": ("delete", "DEFAULT_CONFIG"), "retention.ms": ("86400000", "DYNAMIC_TOPIC_CONFIG")}.items() \
        <= {c["name"]: (c["value"], c["source"]) for c in every}.items()

    r = run("configs", "--alter", "--topic", topic, "--add-config", "no.such.config=1")
    assert r.code == 1 and r.err.startswith("Error: altering topic ") and "INVALID_CONFIG" in r.err
    r = run("configs", "--describe", "--topic", unique("missing"))
    assert r.code == 1 and "does not exist" in r.err
    r = run("configs", "--alter", "--topic", topic, "--add-config", "retention.ms")
    assert r.code == 1 and 'must be in the format "key=val"' in r.err


def test_broker_and_broker_default_configs(run: Cli) -> None:
    r = run("configs", "--alter", "--entity-type", "brokers", "--entity-default",
            "--add-config", "log.retention.ms=3600000", as_json=False)
    assert (r.code, r.out) == (0, "Completed updating default config for brokers in the cluster.\n")
    r = run("configs", "--alter", "--broker", "1", "--add-config", "log.retention.ms=7200000", as_json=False)
    assert (r.code, r.out) == (0, "Completed updating config for broker 1.\n")

    r = run("configs", "--describe", "--broker-defaults", as_json=False)
    assert r.out.splitlines() == [
        "Default configs for brokers in the cluster are:",
        "  log.retention.ms=3600000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=3600000}"]
    r = run("configs", "--describe", "--entity-type", "brokers", "--entity-name", "1")
    assert [(c["name"], c["value"], c["source"], [s["source"] for s in c["synonyms"]])
            for c in r.json[0]["configs"]] == [
        ("log.retention.ms", "7200000", "DYNAMIC_BROKER_CONFIG",
         ["DYNAMIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG", "DEFAULT_CONFIG"])]
    # Every broker and then the default, as kafka-configs.sh without --entity-name.
    r = run("configs", "--describe", "--entity-type", "brokers")
    assert [d["entity_name"] for d in r.json] == ["1", None]

    assert run("configs", "--alter", "--broker", "1", "--delete-config", "log.retention.ms").code == 0
    assert run("configs", "--alter", "--broker-defaults", "--delete-config", "log.retention.ms").code == 0
    assert run("configs", "--describe", "--broker", "1").json[0]["configs"] == []


def test_group_configs(run: Cli) -> None:
    group = unique("cfg-group")
    r = run("configs", "--alter", "--entity-type", "groups", "--entity-name", group,
            "--add-config", "consumer.session.timeout.ms=50000", as_json=False)
    assert (r.code, r.out) == (0, f"Completed updating config for group {group}.\n")
    r = run("configs", "--describe", "--group", group, as_json=False)
    assert r.out.splitlines() == [
        f"Dynamic configs for group {group} are:",
        "  consumer.session.timeout.ms=50000 sensitive=false synonyms={DYNAMIC_GROUP_CONFIG:"
        "consumer.session.timeout.ms=50000, DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}"]
    # Without a name: every group the brokers list (this one exists only as configs: none).
    assert run("configs", "--describe", "--entity-type", "groups").json == []
    r = run("configs", "--alter", "--entity-type", "groups", "--add-config", "consumer.session.timeout.ms=50000")
    assert (r.code, r.err) == (1, "Error: An entity name must be specified with --alter of groups\n")
    r = run("configs", "--alter", "--group", group, "--add-config", "consumer.session.timeout.ms=1")
    assert r.code == 1 and "INVALID_CONFIG" in r.err


def test_client_user_and_ip_quotas(run: Cli) -> None:
    user, client = unique("cfg-user"), unique("cfg-client")
    r = run("configs", "--alter", "--entity-type", "users", "--entity-name", user, "--entity-type", "clients",
            "--entity-default", "--add-config", "producer_byte_rate=1024,consumer_byte_rate=2048", as_json=False)
    assert (r.code, r.out) == (0, f"Completed updating config for user {user}.\n")
    r = run("configs", "--alter", "--client", client, "--add-config", "request_percentage=50", as_json=False)
    assert (r.code, r.out) == (0, f"Completed updating config for client {client}.\n")
    r = run("configs", "--alter", "--entity-type", "ips", "--entity-default",
            "--add-config", "connection_creation_rate=100", as_json=False)
    assert (r.code, r.out) == (0, "Completed updating default config for ips in the cluster.\n")

    r = run("configs", "--describe", "--entity-type", "users", "--entity-name", user, "--entity-type", "clients",
            "--entity-default", as_json=False)
    assert r.out.splitlines() == [f"Quota configs for user-principal '{user}', the default client-id are "
                                  "consumer_byte_rate=2048.0, producer_byte_rate=1024.0"]
    r = run("configs", "--describe", "--client", client)
    assert r.json == {"quotas": [{"entity": {"client-id": client}, "quotas": {"request_percentage": 50.0}}]}
    # Strict, as Kafka's tool asks: the user's own quotas only (it has none without a client id).
    assert run("configs", "--describe", "--user", user).json == {"quotas": [], "scram_credentials": []}
    r = run("configs", "--describe", "--entity-type", "ips", "--entity-default", as_json=False)
    assert r.out == "Quota configs for the default ip are connection_creation_rate=100.0\n"

    r = run("configs", "--alter", "--client", client, "--add-config", "request_percentage=lots")
    assert (r.code, r.err) == (1, "Error: Cannot parse quota configuration value for request_percentage: lots\n")
    assert run("configs", "--alter", "--client", client, "--delete-config", "request_percentage").code == 0
    assert run("configs", "--alter", "--entity-type", "ips", "--entity-default",
               "--delete-config", "connection_creation_rate").code == 0
    assert run("configs", "--alter", "--user", user, "--entity-type", "clients", "--entity-default",
               "--delete-config", "producer_byte_rate,consumer_byte_rate").code == 0
    assert run("configs", "--describe", "--client", client).json == {"quotas": []}


def _scram_login(root: Path, user: str, password: str, mechanism: str) -> Path:
    path = root / f"{user}-{mechanism}.properties"
    path.write_text(f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism={mechanism}\n"
                    "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                    f'username="{user}" password="{password}";\n')
    return path


def test_scram_credentials(run: Cli, scram_broker: ScramBroker, tmp_path: Path) -> None:
    user = unique("scram")
    sasl = f"127.0.0.1:{scram_broker.sasl_port}"
    login256 = _scram_login(tmp_path, user, "pw-256", "SCRAM-SHA-256")
    login512 = _scram_login(tmp_path, user, "pw-512", "SCRAM-SHA-512")
    assert run("health", bootstrap=sasl, config=login256).code == 1

    r = run("configs", "--alter", "--entity-type", "users", "--entity-name", user, "--add-config",
            "SCRAM-SHA-256=[iterations=8192,password=pw-256],SCRAM-SHA-512=[password=pw-512]", as_json=False)
    assert (r.code, r.out, r.err) == (0, f"Completed updating config for user {user}.\n", "")
    r = run("configs", "--describe", "--user", user, as_json=False)
    assert r.out == f"SCRAM credential configs for user-principal '{user}' are SCRAM-SHA-256=iterations=8192, " \
                    "SCRAM-SHA-512=iterations=4096\n"
    assert run("configs", "--describe", "--user", user).json == {"quotas": [], "scram_credentials": [
        {"user": user, "credentials": {"SCRAM-SHA-256": {"iterations": 8192}, "SCRAM-SHA-512": {"iterations": 4096}}}]}
    # The credentials the broker stored are the ones a SCRAM login proves.
    assert run("health", bootstrap=sasl, config=login256).code == 0
    assert run("health", bootstrap=sasl, config=login512).code == 0

    r = run("configs", "--alter", "--user", user, "--delete-config", "SCRAM-SHA-256")
    assert (r.code, r.json["deleted"]) == (0, ["SCRAM-SHA-256"])
    r = run("health", bootstrap=sasl, config=login256)
    assert r.code == 1 and "refused the SCRAM-SHA-256 login" in r.err
    assert run("health", bootstrap=sasl, config=login512).code == 0

    r = run("configs", "--alter", "--user", user, "--add-config", "SCRAM-SHA-256=[iterations=10,password=x]")
    assert r.code == 1 and "UNACCEPTABLE_CREDENTIAL" in r.err
    r = run("configs", "--alter", "--user", user, "--add-config", "SCRAM-SHA-256=[iterations=8192]")
    assert (r.code, r.err) == (1, "Error: SCRAM-SHA-256: a password is required (password=SECRET)\n")
