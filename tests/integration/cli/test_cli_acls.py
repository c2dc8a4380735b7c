"""`odradek acls` (kafka-acls.sh) against a real broker with Kafka's StandardAuthorizer on:
ACLs added, listed and removed by a super user, Kafka's text, the `--producer`/`--consumer`
conveniences letting a user in, the confirmation before a removal, and refusals as exit 1."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from odradek.__main__ import main
from tests.integration.cli.cli_helpers import Run
from tests.integration.security.acl_wire import AclBroker, _start
from tests.names import unique


@pytest.fixture(scope="module")
def acl_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclBroker]:
    broker = _start(tmp_path_factory.mktemp("cli-acl"))
    yield broker
    broker.process.stop()


def _config(root: Path, user: str) -> Path:
    path = root / f"{user}.properties"
    path.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                    "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                    f'username="{user}" password="{user}-pw";\n')
    return path


class As:
    """The CLI run in process as one user of the broker's SASL listener."""

    def __init__(self, capsys: pytest.CaptureFixture[str], broker: AclBroker, root: Path, user: str) -> None:
        self.capsys, self.config = capsys, _config(root, user)
        self.bootstrap = f"127.0.0.1:{broker.sasl_port}"

    def __call__(self, *args: str, as_json: bool = True) -> Run:
        self.capsys.readouterr()
        code = main(["--bootstrap-server", self.bootstrap, "--command-config", str(self.config),
                     *(["--json"] if as_json else []), *args])
        captured = self.capsys.readouterr()
        return Run(code, captured.out, captured.err)


@pytest.fixture
def admin(capsys: pytest.CaptureFixture[str], acl_broker: AclBroker, tmp_path: Path) -> As:
    return As(capsys, acl_broker, tmp_path, "admin")


@pytest.fixture
def alice(capsys: pytest.CaptureFixture[str], acl_broker: AclBroker, tmp_path: Path) -> As:
    return As(capsys, acl_broker, tmp_path, "alice")


def _acl(principal: str, operation: str, permission: str = "ALLOW", host: str = "*") -> dict[str, str]:
    return {"principal": principal, "host": host, "operation": operation, "permission": permission}


def _resource(kind: str, name: str, pattern: str = "LITERAL") -> dict[str, str]:
    return {"resource_type": kind, "name": name, "pattern_type": pattern}


def test_add_list_remove_with_kafkas_text(admin: As) -> None:
    topic = unique("acl-topic")
    run = admin("acls", "--add", "--allow-principal", "User:alice", "--allow-principal", "User:bob",
                "--allow-host", "10.0.0.1", "--operation", "Read", "--operation", "Describe", "--topic", topic,
                as_json=False)
    pattern = f"ResourcePattern(resourceType=TOPIC, name={topic}, patternType=LITERAL)"
    entries = [f"(principal=User:{user}, host=10.0.0.1, operation={op}, permissionType=ALLOW)"
               for user in ("alice", "bob") for op in ("DESCRIBE", "READ")]
    # Kafka 4.0's text: ": " and " \t" before the first entry when adding, not when listing.
    assert run.code == 0, run.err
    assert run.out.splitlines() == [f"Adding ACLs for resource `{pattern}`: ", " \t" + entries[0],
                                    *("\t" + e for e in entries[1:]), ""]
    run = admin("acls", "--list", "--topic", topic, as_json=False)
    assert run.out.splitlines() == [f"Current ACLs for resource `{pattern}`:", *("\t" + e for e in entries), ""]

    run = admin("acls", "--add", "--deny-principal", "User:bob", "--operation", "write", "--topic", topic)
    assert (run.code, run.json) == (0, {"added": [
        {"resource": _resource("TOPIC", topic), "acls": [_acl("User:bob", "WRITE", "DENY")]}]})

    run = admin("acls", "--list", "--topic", topic)
    assert (run.code, run.json) == (0, [{"resource": _resource("TOPIC", topic), "acls": [
        _acl("User:alice", "DESCRIBE", host="10.0.0.1"), _acl("User:alice", "READ", host="10.0.0.1"),
        _acl("User:bob", "WRITE", "DENY"), _acl("User:bob", "DESCRIBE", host="10.0.0.1"),
        _acl("User:bob", "READ", host="10.0.0.1")]}])
    run = admin("acls", "--list", "--topic", topic, "--principal", "User:alice", as_json=False)
    assert run.out.splitlines() == ["ACLs for principal `User:alice`", f"Current ACLs for resource `{pattern}`:",
                                    "\t" + entries[0], "\t" + entries[1], ""]

    # Only bob's DENY entry goes; the rest stays.
    run = admin("acls", "--remove", "--force", "--deny-principal", "User:bob", "--operation", "WRITE",
                "--topic", topic)
    assert (run.code, run.json) == (0, {"removed": [
        {"resource": _resource("TOPIC", topic), "acl": _acl("User:bob", "WRITE", "DENY")}]})
    run = admin("acls", "--remove", "--force", "--topic", topic, as_json=False)
    assert (run.code, run.out) == (0, "")  # Kafka's tool says nothing either

    assert admin("acls", "--list", "--topic", topic).json == []


def test_prefixed_and_pattern_filters(admin: As) -> None:
    prefix = unique("pre") + "-"
    assert admin("acls", "--add", "--allow-principal", "User:carol", "--operation", "Read",
                 "--topic", prefix, "--resource-pattern-type", "prefixed").code == 0
    assert admin("acls", "--list", "--topic", prefix).json == []  # the literal filter by default
    want = [{"resource": _resource("TOPIC", prefix, "PREFIXED"), "acls": [_acl("User:carol", "READ")]}]
    assert admin("acls", "--list", "--topic", prefix, "--resource-pattern-type", "prefixed").json == want
    # MATCH: every pattern that applies to a topic of that name.
    assert admin("acls", "--list", "--topic", prefix + "x", "--resource-pattern-type", "match").json == want
    run = admin("acls", "--add", "--allow-principal", "User:carol", "--topic", prefix, "--resource-pattern-type", "any")
    assert run.code == 1
    assert run.err == "Error: A '--resource-pattern-type' value of 'ANY' is not valid when adding acls.\n"
    run = admin("acls", "--remove", "--force", "--topic", prefix, "--resource-pattern-type", "prefixed")
    assert run.json == {"removed": [{"resource": _resource("TOPIC", prefix, "PREFIXED"),
                                     "acl": _acl("User:carol", "READ")}]}


def test_producer_and_consumer_conveniences_let_a_user_in(admin: As, alice: As) -> None:
    topic, group, txn = unique("acl-pc"), unique("acl-group"), unique("acl-txn")
    assert admin("topics", "create", topic, "--partitions", "1").code == 0
    run = alice("produce", topic, "--value", "v1")
    assert run.code == 1 and "TOPIC_AUTHORIZATION_FAILED" in run.err

    run = admin("acls", "--add", "--producer", "--allow-principal", "User:alice", "--topic", topic,
                "--transactional-id", txn, "--idempotent")
    assert (run.code, run.json["added"]) == (0, [
        {"resource": _resource("TOPIC", topic), "acls": [
            _acl("User:alice", op) for op in ("CREATE", "DESCRIBE", "WRITE")]},
        {"resource": _resource("TRANSACTIONAL_ID", txn), "acls": [
            _acl("User:alice", op) for op in ("DESCRIBE", "WRITE")]},
        {"resource": _resource("CLUSTER", "kafka-cluster"), "acls": [_acl("User:alice", "IDEMPOTENT_WRITE")]}])
    assert alice("produce", topic, "--value", "v1").json["base_offset"] == 0
    assert alice("consume", topic, "--from-beginning", "--timeout-ms", "300").code == 1

    run = admin("acls", "--add", "--consumer", "--allow-principal", "User:alice", "--topic", topic, "--group", group)
    assert run.json["added"] == [
        {"resource": _resource("TOPIC", topic), "acls": [_acl("User:alice", op) for op in ("DESCRIBE", "READ")]},
        {"resource": _resource("GROUP", group), "acls": [_acl("User:alice", "READ")]}]
    run = alice("consume", topic, "--from-beginning", "--max-messages", "1")
    assert run.code == 0 and [r["value"] for r in run.json] == ["v1"]

    run = admin("acls", "--remove", "--force", "--producer", "--allow-principal", "User:alice", "--topic", topic)
    assert [r["acl"]["operation"] for r in run.json["removed"]] == ["CREATE", "DESCRIBE", "WRITE"]
    assert alice("produce", topic, "--value", "v2").code == 1
    # DESCRIBE was one binding of both conveniences: gone with the producer's, as in Kafka.
    assert admin("acls", "--list", "--topic", topic).json == [{"resource": _resource("TOPIC", topic), "acls": [
        _acl("User:alice", "READ")]}]


def test_remove_asks_first(admin: As, monkeypatch: pytest.MonkeyPatch) -> None:
    group = unique("acl-ask")
    assert admin("acls", "--add", "--allow-principal", "User:dan", "--group", group).code == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    run = admin("acls", "--remove", "--group", group)
    assert (run.code, run.json) == (0, {"removed": []})
    assert run.err == (f"Are you sure you want to delete all ACLs for resource filter `ResourcePattern("
                       f"resourceType=GROUP, name={group}, patternType=LITERAL)`? (y/n)\n")
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    run = admin("acls", "--remove", "--group", group, "--allow-principal", "User:dan")
    assert run.err == ("Are you sure you want to remove ACLs: \n \t(principal=User:dan, host=*, operation=ALL, "
                       "permissionType=ALLOW)\n from resource filter `ResourcePattern(resourceType=GROUP, "
                       f"name={group}, patternType=LITERAL)`? (y/n)\n")
    assert run.json == {"removed": [{"resource": _resource("GROUP", group), "acl": _acl("User:dan", "ALL")}]}


def test_refusals(admin: As, alice: As) -> None:
    run = alice("acls", "--add", "--allow-principal", "User:alice", "--cluster")
    assert run.code == 1 and "CLUSTER_AUTHORIZATION_FAILED" in run.err
    # Kafka 4.0's messages.
    run = admin("acls", "--add", "--allow-principal", "User:alice", "--operation", "Write", "--group", "g")
    assert (run.code, run.err) == (1, "Error: ResourceType GROUP only supports operations "
                                      "[DESCRIBE, ALTER_CONFIGS, DESCRIBE_CONFIGS, ALL, READ, DELETE]\n")
    run = admin("acls", "--add", "--allow-principal", "alice", "--topic", "t")
    assert (run.code, run.err) == (1, "Error: expected a string in format principalType:principalName but got "
                                      "alice\n")
    run = admin("acls", "--add", "--allow-principal", "User:alice")
    assert (run.code, run.err) == (1, "Error: You must provide at least one resource: --topic <topic> or --cluster "
                                      "or --group <group> or --delegation-token <Delegation Token ID>\n")
    run = admin("acls", "--add", "--allow-host", "10.0.0.1", "--topic", "t")
    assert (run.code, run.err) == (1, "Error: You must specify one of: --allow-principal, --deny-principal when "
                                      "trying to add ACLs.\n")
    run = admin("acls", "--add", "--consumer", "--allow-principal", "User:alice", "--topic", "t")
    assert (run.code, run.err) == (1, "Error: With --consumer you must specify a --topic and a --group and no "
                                      "--cluster or --transactional-id option should be specified.\n")
    run = admin("acls", "--add", "--producer", "--allow-principal", "User:alice", "--transactional-id", "x")
    assert (run.code, run.err) == (1, "Error: With --producer you must specify a --topic\n")
    run = admin("acls", "--add", "--producer", "--operation", "Read", "--allow-principal", "User:a", "--topic", "t")
    assert (run.code, run.err) == (1, 'Error: Option "[producer]" can\'t be used with option "[operation]"\n')
    with pytest.raises(SystemExit) as usage:
        admin("acls", "--list", "--remove")
    assert usage.value.code == 1
