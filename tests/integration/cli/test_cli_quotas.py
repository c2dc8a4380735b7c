"""`odradek quotas ...` against the real broker: alter and describe by user and client id,
defaults written `<default>`, and Kafka's refusal of an unknown key as exit code 1."""

from __future__ import annotations

import pytest

from tests.integration.cli.cli_helpers import cli
from tests.names import unique


def test_quotas_alter_describe_delete(capsys: pytest.CaptureFixture[str], bootstrap: str) -> None:
    user = unique("cli-user")
    run = cli(capsys, bootstrap, "quotas", "alter", "--user", user, "--client-id", "<default>",
              "--add-config", "producer_byte_rate=1048576", "--add-config", "request_percentage=50")
    assert (run.code, run.json) == (0, {
        "entity": {"user": user, "client-id": "<default>"},
        "set": {"producer_byte_rate": 1048576.0, "request_percentage": 50.0}, "deleted": []})
    run = cli(capsys, bootstrap, "quotas", "describe", "--user", user)
    assert (run.code, run.json) == (0, [{
        "entity": {"client-id": "<default>", "user": user},
        "quotas": {"producer_byte_rate": 1048576.0, "request_percentage": 50.0}}])

    run = cli(capsys, bootstrap, "quotas", "alter", "--user", user, "--add-config", "bytes_per_second=1")
    assert run.code == 1
    assert "INVALID_REQUEST" in run.err and "Invalid configuration key bytes_per_second" in run.err

    run = cli(capsys, bootstrap, "quotas", "alter", "--user", user, "--client-id", "<default>",
              "--delete-config", "producer_byte_rate", "--delete-config", "request_percentage")
    assert run.code == 0
    assert cli(capsys, bootstrap, "quotas", "describe", "--user", user).json == []


def test_quotas_by_ip(capsys: pytest.CaptureFixture[str], bootstrap: str) -> None:
    address = "192.0.2.44"  # TEST-NET-1: no client of the shared broker comes from it
    run = cli(capsys, bootstrap, "quotas", "alter", "--ip", address, "--add-config", "connection_creation_rate=20")
    assert (run.code, run.json) == (0, {"entity": {"ip": address}, "set": {"connection_creation_rate": 20.0},
                                        "deleted": []})
    run = cli(capsys, bootstrap, "quotas", "describe", "--ip", address)
    assert (run.code, run.json) == (0, [{"entity": {"ip": address}, "quotas": {"connection_creation_rate": 20.0}}])
    run = cli(capsys, bootstrap, "quotas", "alter", "--ip", address, "--user", "u", "--add-config",
              "connection_creation_rate=5")
    assert run.code == 1 and "IP entity shouldnot be combined with User or ClientId" in run.err
    assert cli(capsys, bootstrap, "quotas", "alter", "--ip", address, "--delete-config",
               "connection_creation_rate").code == 0
    assert cli(capsys, bootstrap, "quotas", "describe", "--ip", address).json == []
