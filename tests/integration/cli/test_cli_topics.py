"""`odradek topics ...` against the real broker: each command's JSON and exit code, and its
effect seen through Metadata and DescribeConfigs."""

from __future__ import annotations

import uuid

import pytest

from tests.integration.cli.cli_helpers import cli


def _name() -> str:
    return f"cli-{uuid.uuid4().hex[:8]}"


def test_topic_lifecycle(capsys: pytest.CaptureFixture[str], bootstrap: str) -> None:
    topic = _name()
    run = cli(capsys, bootstrap, "topics", "create", topic, "--partitions", "2", "--config", "retention.ms=60000")
    assert (run.code, run.json) == (0, {"topic": topic, "created": True})

    assert topic in cli(capsys, bootstrap, "topics", "list").json

    run = cli(capsys, bootstrap, "topics", "describe", topic)
    assert run.code == 0
    [described] = run.json
    assert described["topic"] == topic and described["internal"] is False
    assert [p["partition"] for p in described["partitions"]] == [0, 1]
    assert all(p["leader"] == 1 and p["replicas"] == [1] and p["isr"] == [1] for p in described["partitions"])
    assert described["configs"] == {"retention.ms": "60000"}

    run = cli(capsys, bootstrap, "topics", "alter-config", topic, "--set", "max.message.bytes=2048",
              "--delete", "retention.ms")
    assert (run.code, run.json) == (0, {"topic": topic, "set": {"max.message.bytes": "2048"}, "deleted": ["retention.ms"]})
    assert cli(capsys, bootstrap, "topics", "describe", topic).json[0]["configs"] == {"max.message.bytes": "2048"}

    run = cli(capsys, bootstrap, "topics", "add-partitions", topic, "--partitions", "5")
    assert (run.code, run.json) == (0, {"topic": topic, "partitions": 5})
    partitions = cli(capsys, bootstrap, "topics", "describe", topic).json[0]["partitions"]
    assert [p["partition"] for p in partitions] == [0, 1, 2, 3, 4]

    run = cli(capsys, bootstrap, "topics", "delete", topic)
    assert (run.code, run.json) == (0, {"deleted": [topic]})
    assert topic not in cli(capsys, bootstrap, "topics", "list").json


def test_create_existing_topic(capsys: pytest.CaptureFixture[str], bootstrap: str) -> None:
    topic = _name()
    assert cli(capsys, bootstrap, "topics", "create", topic, "--partitions", "1").code == 0
    run = cli(capsys, bootstrap, "topics", "create", topic, "--partitions", "1")
    assert run.code == 1 and run.out == ""
    assert run.err == f"Error: creating topic {topic}: TOPIC_ALREADY_EXISTS: Topic '{topic}' already exists.\n"
    run = cli(capsys, bootstrap, "topics", "create", topic, "--partitions", "1", "--if-not-exists")
    assert (run.code, run.json) == (0, {"topic": topic, "created": False})


@pytest.mark.parametrize("args", [
    ["topics", "describe", "{t}"],
    ["topics", "alter-config", "{t}", "--set", "retention.ms=1"],
    ["topics", "add-partitions", "{t}", "--partitions", "3"],
    ["topics", "delete", "{t}"],
])
def test_unknown_topic_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], bootstrap: str, args: list[str]
) -> None:
    topic = _name()
    run = cli(capsys, bootstrap, *[a.format(t=topic) for a in args])
    assert (run.code, run.out, run.err) == (1, "", f"Error: topic {topic} does not exist\n")


def test_delete_if_exists(capsys: pytest.CaptureFixture[str], bootstrap: str) -> None:
    run = cli(capsys, bootstrap, "topics", "delete", _name(), "--if-exists")
    assert (run.code, run.json) == (0, {"deleted": []})
