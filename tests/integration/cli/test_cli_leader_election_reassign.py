"""`odradek leader-election` (kafka-leader-election.sh) and `odradek reassign-partitions`
(kafka-reassign-partitions.sh) against the real, single broker: the broker's answers shown
as Kafka's tools show them (no election needed; the one placement accepted, any other
refused), the JSON files read and written, and failures as exit code 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from odradek.__main__ import main
from tests.integration.cli.cli_helpers import Run, cli
from tests.names import unique


def _text(capsys: pytest.CaptureFixture[str], bootstrap: str, *args: str) -> Run:
    capsys.readouterr()
    code = main(["--bootstrap-server", bootstrap, *args])
    out = capsys.readouterr()
    return Run(code, out.out, out.err)


@pytest.fixture
def topic(capsys: pytest.CaptureFixture[str], bootstrap: str) -> str:
    name = unique("placed")
    assert cli(capsys, bootstrap, "topics", "create", name, "--partitions", "2").code == 0
    return name


def _file(tmp_path: Path, doc: object) -> str:
    path = tmp_path / f"{unique('doc')}.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_leader_election(capsys: pytest.CaptureFixture[str], bootstrap: str, topic: str, tmp_path: Path) -> None:
    run = _text(capsys, bootstrap, "leader-election", "--election-type", "preferred", "--topic", topic,
                "--partition", "0")
    assert (run.code, run.out, run.err) == (0, f"Valid replica already elected for partitions {topic}-0\n", "")
    # Every partition has its leader: an unclean election of all of them has nothing to do.
    run = _text(capsys, bootstrap, "leader-election", "--election-type", "UNCLEAN", "--all-topic-partitions")
    assert (run.code, run.out, run.err) == (0, "", "")

    missing = unique("missing")
    doc = _file(tmp_path, {"partitions": [{"topic": topic, "partition": 1}, {"topic": missing, "partition": 0}]})
    run = _text(capsys, bootstrap, "leader-election", "--election-type", "preferred", "--path-to-json-file", doc)
    assert (run.code, run.out.splitlines(), run.err) == (1, [
        f"Valid replica already elected for partitions {topic}-1",
        f"Error completing leader election (PREFERRED) for partition: {missing}-0: UNKNOWN_TOPIC_OR_PARTITION: "
        f"No such topic as {missing}"], "Error: 1 replica(s) could not be elected\n")
    run = cli(capsys, bootstrap, "leader-election", "--election-type", "preferred", "--topic", topic, "--partition", "1")
    assert run.json == {"election_type": "PREFERRED", "results": [
        {"topic": topic, "partition": 1, "error": "ELECTION_NOT_NEEDED",
         "error_message": "Leader election not needed for topic partition."}]}

    run = _text(capsys, bootstrap, "leader-election", "--election-type", "preferred", "--topic", topic)
    assert (run.code, run.err) == (1, "Error: --partition is required with --topic\n")
    run = _text(capsys, bootstrap, "leader-election", "--election-type", "fair", "--all-topic-partitions")
    assert run.code == 1 and "--election-type must be one of PREFERRED, UNCLEAN" in run.err


def test_reassign_partitions(capsys: pytest.CaptureFixture[str], bootstrap: str, topic: str, tmp_path: Path) -> None:
    current = {"version": 1, "partitions": [
        {"topic": topic, "partition": p, "replicas": [1], "log_dirs": ["any"]} for p in (0, 1)]}
    topics = _file(tmp_path, {"version": 1, "topics": [{"topic": topic}]})
    run = _text(capsys, bootstrap, "reassign-partitions", "--generate", "--topics-to-move-json-file", topics,
                "--broker-list", "1")
    assert (run.code, run.out.splitlines()) == (0, [
        "Current partition replica assignment", json.dumps(current, separators=(",", ":")), "",
        "Proposed partition reassignment configuration", json.dumps(current, separators=(",", ":"))])

    plan = _file(tmp_path, {"version": 1, "partitions": [{"topic": topic, "partition": 0, "replicas": [1]}]})
    run = _text(capsys, bootstrap, "reassign-partitions", "--execute", "--reassignment-json-file", plan)
    assert (run.code, run.out.splitlines()) == (0, [
        "Current partition replica assignment", "",
        json.dumps({"version": 1, "partitions": [current["partitions"][0]]}, separators=(",", ":")), "",
        "Save this to use as the --reassignment-json-file option during rollback",
        f"Successfully started partition reassignment for {topic}-0"])
    # Completed: Kafka's tool then clears the replication throttles (unless --preserve-throttles).
    run = _text(capsys, bootstrap, "reassign-partitions", "--verify", "--reassignment-json-file", plan)
    assert run.out.splitlines() == ["Status of partition reassignment:",
                                    f"Reassignment of partition {topic}-0 is completed.", "",
                                    "Clearing broker-level throttles on broker 1",
                                    f"Clearing topic-level throttles on topic {topic}"]
    run = _text(capsys, bootstrap, "reassign-partitions", "--verify", "--reassignment-json-file", plan,
                "--preserve-throttles")
    assert run.out.splitlines() == ["Status of partition reassignment:",
                                    f"Reassignment of partition {topic}-0 is completed.", ""]
    assert _text(capsys, bootstrap, "reassign-partitions", "--list").out == "No partition reassignments found.\n"
    assert cli(capsys, bootstrap, "reassign-partitions", "--list").json == []
    run = _text(capsys, bootstrap, "reassign-partitions", "--cancel", "--reassignment-json-file", plan)
    assert (run.code, run.out.splitlines()) == (0, [
        "None of the specified partition reassignments are active.",
        "None of the specified partition moves are active.",
        "Clearing broker-level throttles on broker 1", f"Clearing topic-level throttles on topic {topic}"])

    # Kafka's tool's own checks, before anything is sent: brokers that exist, no replica twice.
    wider = _file(tmp_path, {"version": 1, "partitions": [{"topic": topic, "partition": 1, "replicas": [1, 2]}]})
    run = _text(capsys, bootstrap, "reassign-partitions", "--execute", "--reassignment-json-file", wider)
    assert (run.code, run.out, run.err) == (1, "", "Error: Unknown broker id 2\n")
    twice = _file(tmp_path, {"version": 1, "partitions": [{"topic": topic, "partition": 1, "replicas": [1, 1]}]})
    run = _text(capsys, bootstrap, "reassign-partitions", "--execute", "--reassignment-json-file", twice)
    assert (run.code, run.err) == (1, f"Error: Partition replica lists may not contain duplicate entries: {topic}-1 "
                                      "contains multiple entries for 1\n")
    nowhere = _file(tmp_path, {"version": 1, "partitions": [{"topic": topic, "partition": 7, "replicas": [1]}]})
    run = _text(capsys, bootstrap, "reassign-partitions", "--execute", "--reassignment-json-file", nowhere)
    assert (run.code, run.err) == (1, f"Error: Unable to find partition: {topic}-7\n")
    run = _text(capsys, bootstrap, "reassign-partitions", "--verify", "--reassignment-json-file", wider)
    assert run.out.splitlines()[1] == (f"There is no active reassignment of partition {topic}-1, but replica set "
                                       "is 1 rather than 1,2.")
    # Brokers of --broker-list that do not exist are left out, as by Kafka's tool.
    run = _text(capsys, bootstrap, "reassign-partitions", "--generate", "--topics-to-move-json-file", topics,
                "--broker-list", "1,2")
    assert (run.code, run.out.splitlines()[-1]) == (0, json.dumps(current, separators=(",", ":")))
    run = _text(capsys, bootstrap, "reassign-partitions", "--execute")
    assert (run.code, run.err) == (1, "Error: --reassignment-json-file is required with --execute, --verify and "
                                      "--cancel\n")
