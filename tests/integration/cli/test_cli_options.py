"""The global options (`--bootstrap-server`, `--json`, `--timeout`, `--command-config`)
before or after the command, as Kafka's tools take them, through the `odradek` command in
a child process against the real broker; usage errors one line on stderr and exit 1."""

from __future__ import annotations

import os
import uuid

from odradek.testing import free_port
from tests.integration.cli.cli_helpers import cli_process


def _env_pointing_nowhere() -> dict[str, str]:
    """The environment with the bootstrap variable on a closed port: an option's value lost
    to a default would show as a refused connection."""
    return {**os.environ, "ODRADEK_BOOTSTRAP_SERVER": f"127.0.0.1:{free_port()}"}


def test_options_after_the_command(bootstrap: str) -> None:
    topic = f"cli-o-{uuid.uuid4().hex[:8]}"
    env = _env_pointing_nowhere()
    run = cli_process("topics", "create", topic, "--partitions", "2", "--bootstrap-server", bootstrap, "--json",
                      env=env)
    assert (run.code, run.json, run.err) == (0, {"topic": topic, "created": True}, "")
    run = cli_process("topics", "list", "--bootstrap-server", bootstrap, "--json", "--timeout", "5", env=env)
    assert run.code == 0 and topic in run.json


def test_options_before_between_and_after(bootstrap: str) -> None:
    topic = f"cli-o-{uuid.uuid4().hex[:8]}"
    env = _env_pointing_nowhere()
    # The bootstrap before the command, --json between the two levels, --timeout at the end:
    # the subcommands' parsers must not reset what the umbrella parsed.
    run = cli_process("--bootstrap-server", bootstrap, "topics", "--json", "create", topic, "--timeout", "5", env=env)
    assert (run.code, run.json) == (0, {"topic": topic, "created": True})
    run = cli_process("--bootstrap-server", bootstrap, "produce", topic, "--value", "v", "--json", env=env)
    assert (run.code, run.json) == (0, {"topic": topic, "partition": 0, "base_offset": 0, "count": 1})
    # Given twice, the later value counts (the closed port first, then the broker).
    nowhere = env["ODRADEK_BOOTSTRAP_SERVER"]
    run = cli_process("--bootstrap-server", nowhere, "--json", "consume", topic, "--from-beginning",
                      "--max-messages", "1", "--bootstrap-server", bootstrap, env=env)
    assert run.code == 0 and [r["value"] for r in run.json] == ["v"]


def test_kafka_spellings_of_the_bootstrap_option(bootstrap: str) -> None:
    env = _env_pointing_nowhere()
    for option in ("--bootstrap-server", "--bootstrap-servers", "--broker-list"):
        run = cli_process("health", f"{option}={bootstrap}", env=env)
        assert run.code == 0 and run.out.startswith("OK: 1 broker(s), cluster "), (option, run.err)


def test_without_the_option_the_variable_is_used() -> None:
    env = _env_pointing_nowhere()
    address = env["ODRADEK_BOOTSTRAP_SERVER"]
    run = cli_process("groups", "list", "--json", env=env)
    assert (run.code, run.out, run.err) == (1, "", f"Error: cannot connect to {address}: Connection refused\n")


def test_usage_errors_after_the_command_are_one_line() -> None:
    run = cli_process("topics", "list", "--timeout", "soon")
    assert (run.code, run.out, run.err) == (
        1, "", "odradek topics list: error: argument --timeout: invalid float value: 'soon'\n")
    run = cli_process("topics", "list", "--no-such-option")
    assert (run.code, run.out, run.err) == (1, "", "odradek: error: unrecognized arguments: --no-such-option\n")
    run = cli_process("health", "--bootstrap-server")
    assert (run.code, run.out, run.err) == (
        1, "", "odradek health: error: argument --bootstrap-server/--bootstrap-servers/--broker-list: "
               "expected one argument\n")
