"""`odradek reassign-partitions`: Kafka's kafka-reassign-partitions.sh (its
ReassignPartitionsCommand): --generate a proposal (Kafka's rack-unaware assignment),
--execute one (AlterPartitionReassignments, KIP-455), --verify it, --list the ongoing ones
(ListPartitionReassignments) and --cancel them, with Kafka's JSON files and text. On one
broker the only placement is the current one: the broker accepts that and refuses others."""

from __future__ import annotations

import json
import random
from typing import Any

from odradek.cli.client import CliError, Cluster, check
from odradek.cli.output import Output
from odradek.wire import error_name
from protocol.errors import ErrorCode
from protocol.messages.alter_partition_reassignments_request import (
    AlterPartitionReassignmentsRequest,
    ReassignablePartition,
    ReassignableTopic,
)
from protocol.messages.incremental_alter_configs_request import (
    AlterableConfig,
    AlterConfigsResource,
    IncrementalAlterConfigsRequest,
)
from protocol.messages.list_partition_reassignments_request import (
    ListPartitionReassignmentsRequest,
    ListPartitionReassignmentsTopics,
)

TIMEOUT_MS = 30_000
BROKER_RESOURCE, TOPIC_RESOURCE, DELETE = 4, 2, 1
# The throttles a reassignment may set (Kafka's ReassignPartitionsCommand).
BROKER_THROTTLES = ["leader.replication.throttled.rate", "follower.replication.throttled.rate",
                    "replica.alter.log.dirs.io.max.bytes.per.second"]
TOPIC_THROTTLES = ["leader.replication.throttled.replicas", "follower.replication.throttled.replicas"]
Assignment = dict[tuple[str, int], list[int]]


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CliError(f"{path}: not JSON: {exc}") from None


def read_reassignment(path: str) -> Assignment:
    """`{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2],"log_dirs":[...]}]}`."""
    doc = _read_json(path)
    try:
        parts = {(str(p["topic"]), int(p["partition"])): [int(r) for r in p["replicas"]] for p in doc["partitions"]}
    except (KeyError, TypeError, ValueError) as exc:
        raise CliError(f"{path}: not a reassignment document: {exc}") from None
    if not parts:
        raise CliError("Partition reassignment list cannot be empty")
    return parts


def _json(assignment: Assignment) -> str:
    """Kafka's format, compact; log_dirs "any" (no directory chosen)."""
    return json.dumps({"version": 1, "partitions": [
        {"topic": t, "partition": p, "replicas": rs, "log_dirs": ["any"] * len(rs)}
        for (t, p), rs in sorted(assignment.items())]}, separators=(",", ":"))


def _current(cluster: Cluster, topics: list[str]) -> Assignment:
    meta = cluster.metadata(sorted(set(topics)))
    out: Assignment = {}
    for t in meta.topics:
        if t.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
            raise CliError(f"Topic {t.name} not found")
        check(t.error_code, f"topic {t.name}")
        out.update({(t.name, p.partition_index): list(p.replica_nodes) for p in t.partitions})
    return out


def _ongoing(cluster: Cluster, partitions: list[tuple[str, int]] | None) -> dict[tuple[str, int], Any]:
    topics: list[ListPartitionReassignmentsTopics] | None = None
    if partitions is not None:
        by_topic: dict[str, list[int]] = {}
        for t, p in partitions:
            by_topic.setdefault(t, []).append(p)
        topics = [ListPartitionReassignmentsTopics(name=t, partition_indexes=ps) for t, ps in sorted(by_topic.items())]
    resp = cluster.any_node().call(ListPartitionReassignmentsRequest(timeout_ms=TIMEOUT_MS, topics=topics), 0)
    check(resp.error_code, "listing partition reassignments", resp.error_message)
    return {(t.name, p.partition_index): p for t in resp.topics for p in t.partitions}


def _alter(cluster: Cluster, targets: dict[tuple[str, int], list[int] | None]) -> dict[str, str]:
    by_topic: dict[str, list[ReassignablePartition]] = {}
    for (t, p), replicas in sorted(targets.items()):
        by_topic.setdefault(t, []).append(ReassignablePartition(partition_index=p, replicas=replicas))
    resp = cluster.any_node().call(AlterPartitionReassignmentsRequest(
        timeout_ms=TIMEOUT_MS, topics=[ReassignableTopic(name=t, partitions=ps) for t, ps in by_topic.items()]), 0)
    check(resp.error_code, "reassigning partitions", resp.error_message)
    return {f"{t.name}-{p.partition_index}": f"{error_name(p.error_code)}: {p.error_message}"
            for t in resp.responses for p in t.partitions if p.error_code != ErrorCode.NONE}


def _check_brokers(cluster: Cluster, wanted: Assignment) -> None:
    """Kafka's tool's own checks, before anything is sent."""
    for (t, p), replicas in sorted(wanted.items()):
        twice = sorted({r for r in replicas if replicas.count(r) > 1})
        if twice:
            raise CliError(f"Partition replica lists may not contain duplicate entries: {t}-{p} contains multiple "
                           f"entries for {','.join(map(str, twice))}")
    known = {b.node_id for b in cluster.metadata([]).brokers}
    for replicas in wanted.values():
        for b in replicas:
            if b not in known:
                raise CliError(f"Unknown broker id {b}")


def _clear_throttles(cluster: Cluster, topics: list[str]) -> list[str]:
    """Kafka's clearAllThrottles: the throttle rates off every broker, the throttled replica
    lists off the topics."""
    brokers = sorted(b.node_id for b in cluster.metadata([]).brokers)
    resources = [AlterConfigsResource(resource_type=BROKER_RESOURCE, resource_name=str(b), configs=[
        AlterableConfig(name=n, config_operation=DELETE, value=None) for n in BROKER_THROTTLES]) for b in brokers]
    resources += [AlterConfigsResource(resource_type=TOPIC_RESOURCE, resource_name=t, configs=[
        AlterableConfig(name=n, config_operation=DELETE, value=None) for n in TOPIC_THROTTLES]) for t in topics]
    resp = cluster.any_node().call(IncrementalAlterConfigsRequest(resources=resources), 1)
    for r in resp.responses:
        check(r.error_code, f"clearing the throttles of {r.resource_name}", r.error_message)
    return [f"Clearing broker-level throttles on broker{'s' if len(brokers) > 1 else ''} {','.join(map(str, brokers))}",
            f"Clearing topic-level throttles on topic{'s' if len(topics) > 1 else ''} {','.join(topics)}"]


def execute(cluster: Cluster, path: str) -> Output:
    wanted = read_reassignment(path)
    _check_brokers(cluster, wanted)
    current = _current(cluster, [t for t, _ in wanted])
    missing = sorted(f"{t}-{p}" for t, p in wanted if (t, p) not in current)
    if missing:
        raise CliError(f"Unable to find partition: {', '.join(missing)}")
    before = {tp: current[tp] for tp in wanted}
    lines = ["Current partition replica assignment", "", _json(before), "",
             "Save this to use as the --reassignment-json-file option during rollback"]
    errors = _alter(cluster, dict(wanted.items()))
    started = [f"{t}-{p}" for t, p in sorted(wanted) if f"{t}-{p}" not in errors]
    if started:
        lines.append(f"Successfully started partition reassignment{'s' if len(started) > 1 else ''} for "
                     f"{','.join(started)}")
    data = {"current": json.loads(_json(before)), "started": started, "errors": errors}
    if errors:
        lines.append("Error reassigning partition(s):")
        lines += [f"{name}: {why}" for name, why in sorted(errors.items())]
        raise CliError(f"{len(errors)} partition reassignment(s) failed", Output(data, lines=lines))
    return Output(data, lines=lines)


def verify(cluster: Cluster, path: str, preserve_throttles: bool = False) -> Output:
    wanted = read_reassignment(path)
    ongoing = _ongoing(cluster, sorted(wanted))
    current = _current(cluster, [t for t, _ in wanted])
    lines = ["Status of partition reassignment:"]
    states: list[dict[str, Any]] = []
    for (t, p), replicas in sorted(wanted.items()):
        if (t, p) in ongoing:
            state, text = "in_progress", f"Reassignment of partition {t}-{p} is still in progress."
        elif current.get((t, p)) == replicas:
            state, text = "completed", f"Reassignment of partition {t}-{p} is completed."
        else:
            shown = ",".join(map(str, current.get((t, p), [])))
            state = "not_active"
            text = (f"There is no active reassignment of partition {t}-{p}, but replica set is {shown} rather "
                    f"than {','.join(map(str, replicas))}.")
        lines.append(text)
        states.append({"topic": t, "partition": p, "state": state})
    if all(st["state"] == "completed" for st in states):
        # Done: Kafka's tool then removes the replication throttles it may have set.
        lines.append("")
        if not preserve_throttles:
            lines += _clear_throttles(cluster, sorted({t for t, _ in wanted}))
    return Output({"partitions": states}, lines=lines)


def list_reassignments(cluster: Cluster) -> Output:
    ongoing = _ongoing(cluster, None)
    if not ongoing:
        return Output([], lines=["No partition reassignments found."])
    lines = ["Current partition reassignments:"]
    data = []
    for (t, p), r in sorted(ongoing.items()):
        lines.append(f"{t}-{p}: replicas: {','.join(map(str, r.replicas))}. adding: "
                     f"{','.join(map(str, r.adding_replicas))}. removing: {','.join(map(str, r.removing_replicas))}.")
        data.append({"topic": t, "partition": p, "replicas": list(r.replicas), "adding": list(r.adding_replicas),
                     "removing": list(r.removing_replicas)})
    return Output(data, lines=lines)


def cancel(cluster: Cluster, path: str, preserve_throttles: bool = False) -> Output:
    wanted = read_reassignment(path)
    active = sorted(tp for tp in _ongoing(cluster, sorted(wanted)))
    errors = _alter(cluster, dict.fromkeys(active)) if active else {}
    cancelled = [f"{t}-{p}" for t, p in active if f"{t}-{p}" not in errors]
    lines = [f"Successfully cancelled partition reassignment{'s' if len(cancelled) > 1 else ''} for: "
             f"{','.join(cancelled)}"] if cancelled else []
    if not active:
        lines.append("None of the specified partition reassignments are active.")
    # Log directory moves are not made by this tool: none can be active.
    lines.append("None of the specified partition moves are active.")
    data = {"cancelled": cancelled, "errors": errors}
    if errors:
        lines.append("Error cancelling partition reassignment(s):")
        lines += [f"{name}: {why}" for name, why in sorted(errors.items())]
        raise CliError(f"{len(errors)} cancellation(s) failed", Output(data, lines=lines))
    if not preserve_throttles:
        lines += _clear_throttles(cluster, sorted({t for t, _ in wanted}))
    return Output(data, lines=lines)


def assign_replicas(partitions: int, replication: int, brokers: list[int], rng: random.Random) -> list[list[int]]:
    """Kafka's rack-unaware AdminUtils.assignReplicasToBrokers: the first replicas round-robin
    from a random broker, the others shifted by a random (then growing) step."""
    n = len(brokers)
    if replication > n:
        raise CliError(f"Replication factor: {replication} larger than available brokers: {n}.")
    start, shift = rng.randrange(n), rng.randrange(n)
    out = []
    for pid in range(partitions):
        if pid > 0 and pid % n == 0:
            shift += 1
        first = (pid + start) % n
        replicas = [brokers[first]]
        for j in range(replication - 1):
            step = 1 + (shift + j) % (n - 1)
            replicas.append(brokers[(first + step) % n])
        out.append(replicas)
    return out


def generate(cluster: Cluster, topics_file: str, broker_list: str, rng: random.Random | None = None) -> Output:
    """`{"version":1,"topics":[{"topic":"t"}]}` and the brokers to spread them over."""
    doc = _read_json(topics_file)
    try:
        topics = [str(t["topic"]) for t in doc["topics"]]
    except (KeyError, TypeError) as exc:
        raise CliError(f"{topics_file}: not a topics document ({{\"topics\": [{{\"topic\": ...}}]}}): {exc}") from None
    try:
        brokers = sorted({int(b) for b in broker_list.split(",") if b.strip()})
    except ValueError:
        raise CliError(f"--broker-list takes broker ids, comma-separated: {broker_list!r}") from None
    # As Kafka's tool: the brokers of the list that exist (the others are left out).
    known = {b.node_id for b in cluster.metadata([]).brokers}
    brokers = [b for b in brokers if b in known]
    if not brokers:
        raise CliError(f"None of the brokers of --broker-list exist: {broker_list}")
    current = _current(cluster, topics)
    proposed: Assignment = {}
    for topic in sorted(set(topics)):
        parts = sorted(p for t, p in current if t == topic)
        replication = len(current[(topic, parts[0])]) if parts else 1
        for p, replicas in zip(parts, assign_replicas(len(parts), replication, brokers, rng or random.Random()),
                               strict=True):
            proposed[(topic, p)] = replicas
    lines = ["Current partition replica assignment", _json(current), "",
             "Proposed partition reassignment configuration", _json(proposed)]
    return Output({"current": json.loads(_json(current)), "proposed": json.loads(_json(proposed))}, lines=lines)
