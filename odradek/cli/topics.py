"""`odradek topics`: list, create, describe, alter-config, add-partitions, delete (the
commands of Kafka's kafka-topics.sh and kafka-configs.sh for topics)."""

from __future__ import annotations

from typing import Any

from odradek.cli.client import CliError, Cluster, check
from odradek.cli.output import Output
from protocol.errors import ErrorCode
from protocol.messages.create_partitions_request import CreatePartitionsRequest, CreatePartitionsTopic
from protocol.messages.create_topics_request import CreatableTopic, CreatableTopicConfig, CreateTopicsRequest
from protocol.messages.delete_topics_request import DeleteTopicsRequest
from protocol.messages.describe_configs_request import DescribeConfigsRequest, DescribeConfigsResource
from protocol.messages.incremental_alter_configs_request import (
    AlterableConfig,
    AlterConfigsResource,
    IncrementalAlterConfigsRequest,
)

TOPIC_RESOURCE = 2
SET, DELETE = 0, 1
TIMEOUT_MS = 30_000
# DescribeConfigs sources that are not the defaults (Kafka's ConfigSource ids).
DYNAMIC_TOPIC_CONFIG = 1


def parse_pairs(items: list[str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CliError(f"{what} needs name=value, got {item!r}")
        out[key.strip()] = value
    return out


def list_topics(cluster: Cluster, exclude_internal: bool) -> Output:
    resp = cluster.metadata(None)
    names = sorted(t.name for t in resp.topics if not (exclude_internal and t.is_internal))
    return Output(names, lines=names)


def create(cluster: Cluster, name: str, partitions: int, replication: int, configs: list[str],
           if_not_exists: bool) -> Output:
    topic = CreatableTopic(
        name=name, num_partitions=partitions, replication_factor=replication,
        configs=[CreatableTopicConfig(name=k, value=v) for k, v in parse_pairs(configs, "--config").items()],
    )
    resp = cluster.any_node().call(CreateTopicsRequest(topics=[topic], timeout_ms=TIMEOUT_MS), 5)
    result = resp.topics[0]
    if not (if_not_exists and result.error_code == ErrorCode.TOPIC_ALREADY_EXISTS):
        check(result.error_code, f"creating topic {name}", result.error_message)
    data = {"topic": name, "created": result.error_code == ErrorCode.NONE}
    return Output(data, lines=[f"Created topic {name}." if data["created"] else f"Topic {name} already exists."])


def _topic_configs(cluster: Cluster, names: list[str]) -> dict[str, dict[str, str | None]]:
    resp = cluster.any_node().call(DescribeConfigsRequest(resources=[
        DescribeConfigsResource(resource_type=TOPIC_RESOURCE, resource_name=n, configuration_keys=None)
        for n in names
    ]), 4)
    out: dict[str, dict[str, str | None]] = {}
    for r in resp.results:
        check(r.error_code, f"topic {r.resource_name}", r.error_message)
        # Like kafka-topics.sh --describe: only what was set for the topic itself.
        out[r.resource_name] = {c.name: c.value for c in r.configs if c.config_source == DYNAMIC_TOPIC_CONFIG}
    return out


def describe(cluster: Cluster, names: list[str]) -> Output:
    resp = cluster.metadata(names or None)
    topics = sorted((t for t in resp.topics if names or not t.is_internal), key=lambda t: t.name)
    for t in topics:
        if t.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
            raise CliError(f"topic {t.name} does not exist")
        check(t.error_code, f"topic {t.name}")
    configs = _topic_configs(cluster, [t.name for t in topics]) if topics else {}
    data: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for t in topics:
        parts = [
            {"partition": p.partition_index, "leader": p.leader_id, "replicas": list(p.replica_nodes),
             "isr": list(p.isr_nodes)}
            for p in sorted(t.partitions, key=lambda p: p.partition_index)
        ]
        data.append({"topic": t.name, "topic_id": str(t.topic_id), "internal": t.is_internal,
                     "partitions": parts, "configs": configs.get(t.name, {})})
        rows += [{"topic": t.name, **p, "configs": configs.get(t.name, {})} for p in parts]
    return Output(data, ["topic", "partition", "leader", "replicas", "isr", "configs"], rows)


def alter_config(cluster: Cluster, name: str, sets: list[str], deletes: list[str]) -> Output:
    if not sets and not deletes:
        raise CliError("nothing to change: give --set name=value or --delete name")
    pairs = parse_pairs(sets, "--set")
    changes = [AlterableConfig(name=k, config_operation=SET, value=v) for k, v in pairs.items()]
    changes += [AlterableConfig(name=k, config_operation=DELETE, value=None) for k in deletes]
    resp = cluster.any_node().call(IncrementalAlterConfigsRequest(resources=[
        AlterConfigsResource(resource_type=TOPIC_RESOURCE, resource_name=name, configs=changes)
    ]), 1)
    r = resp.responses[0]
    if r.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
        raise CliError(f"topic {name} does not exist")
    check(r.error_code, f"altering topic {name}", r.error_message)
    return Output({"topic": name, "set": pairs, "deleted": list(deletes)},
                  lines=[f"Completed updating config for topic {name}."])


def add_partitions(cluster: Cluster, name: str, count: int) -> Output:
    resp = cluster.any_node().call(CreatePartitionsRequest(
        topics=[CreatePartitionsTopic(name=name, count=count, assignments=None)], timeout_ms=TIMEOUT_MS,
    ), 2)
    r = resp.results[0]
    if r.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
        raise CliError(f"topic {name} does not exist")
    check(r.error_code, f"adding partitions to {name}", r.error_message)
    return Output({"topic": name, "partitions": count}, lines=[f"Topic {name} now has {count} partitions."])


def delete(cluster: Cluster, names: list[str], if_exists: bool) -> Output:
    resp = cluster.any_node().call(DeleteTopicsRequest(topic_names=names, timeout_ms=TIMEOUT_MS), 4)
    deleted: list[str] = []
    for r in resp.responses:
        if r.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
            if if_exists:
                continue
            raise CliError(f"topic {r.name} does not exist")
        check(r.error_code, f"deleting topic {r.name}", r.error_message)
        deleted.append(r.name)
    deleted.sort()
    return Output({"deleted": deleted}, lines=[f"Deleted topic {n}." for n in deleted])
