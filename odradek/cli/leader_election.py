"""`odradek leader-election`: Kafka's kafka-leader-election.sh (its LeaderElectionCommand)
through ElectLeaders (KIP-183, KIP-460): preferred or unclean elections for the partitions
named (--topic/--partition, a --path-to-json-file) or all of them, printed as Kafka prints
them; any partition that could not be elected makes the exit code 1."""

from __future__ import annotations

import json
from typing import Any

from odradek.cli.client import CliError, Cluster, check
from odradek.cli.output import Output
from odradek.wire import error_name
from protocol.errors import ErrorCode
from protocol.messages.elect_leaders_request import ElectLeadersRequest, TopicPartitions

ELECTION_TYPES = {"PREFERRED": 0, "UNCLEAN": 1}
TIMEOUT_MS = 30_000


def _from_file(path: str) -> list[tuple[str, int]]:
    """`{"partitions": [{"topic": "t", "partition": 0}, ...]}`, as Kafka's tool reads it."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        found = [(str(p["topic"]), int(p["partition"])) for p in doc["partitions"]]
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise CliError(f"{path}: not a partitions document ({{\"partitions\": [{{\"topic\": ..., "
                       f"\"partition\": ...}}]}}): {exc}") from None
    duplicates = sorted({f"{t}-{p}" for t, p in found if found.count((t, p)) > 1})
    if duplicates:
        raise CliError(f"Replica election data contains duplicate partitions: {', '.join(duplicates)}")
    return found


def elect(cluster: Cluster, election_type: str, topic: str | None, partition: int | None, all_partitions: bool,
          json_file: str | None) -> Output:
    kind = election_type.upper()
    if kind not in ELECTION_TYPES:
        raise CliError(f"--election-type must be one of {', '.join(ELECTION_TYPES)} (case-insensitive)")
    given = sum([all_partitions, topic is not None, json_file is not None])
    if given != 1:
        raise CliError("One and only one of the following options is required: --all-topic-partitions, --topic, "
                       "--path-to-json-file")
    if topic is not None and partition is None:
        raise CliError("--partition is required with --topic")
    if partition is not None and topic is None:
        raise CliError("--partition needs --topic")
    if all_partitions:
        wanted: list[tuple[str, int]] | None = None
    elif json_file is not None:
        wanted = _from_file(json_file)
    else:
        assert topic is not None and partition is not None
        wanted = [(topic, partition)]
    by_topic: dict[str, list[int]] = {}
    for t, p in wanted or []:
        by_topic.setdefault(t, []).append(p)
    resp = cluster.any_node().call(ElectLeadersRequest(
        election_type=ELECTION_TYPES[kind], timeout_ms=TIMEOUT_MS,
        topic_partitions=None if wanted is None else [TopicPartitions(topic=t, partitions=ps)
                                                      for t, ps in by_topic.items()]), 2)
    check(resp.error_code, "electing leaders")
    succeeded: list[str] = []
    noop: list[str] = []
    failed: list[tuple[str, str]] = []
    results: list[dict[str, Any]] = []
    for t in resp.replica_election_results:
        for p in t.partition_result:
            name = f"{t.topic}-{p.partition_id}"
            error = None if p.error_code == ErrorCode.NONE else error_name(p.error_code)
            results.append({"topic": t.topic, "partition": p.partition_id, "error": error,
                            "error_message": p.error_message if error else None})
            if p.error_code == ErrorCode.NONE:
                succeeded.append(name)
            elif p.error_code == ErrorCode.ELECTION_NOT_NEEDED:
                noop.append(name)
            else:
                failed.append((name, f"{error}: {p.error_message}" if p.error_message else str(error)))
    lines: list[str] = []
    if succeeded:
        lines.append(f"Successfully completed leader election ({kind}) for partitions {', '.join(succeeded)}")
    if noop:
        lines.append(f"Valid replica already elected for partitions {', '.join(noop)}")
    lines += [f"Error completing leader election ({kind}) for partition: {name}: {why}" for name, why in failed]
    output = Output({"election_type": kind, "results": results}, lines=lines)
    if failed:
        raise CliError(f"{len(failed)} replica(s) could not be elected", output)
    return output
