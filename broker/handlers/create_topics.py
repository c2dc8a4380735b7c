"""CreateTopics, with the checks and messages of Kafka's KRaft controller for a cluster of
one broker: every partition has exactly one replica, on this node."""

from __future__ import annotations

from collections import Counter

from broker.context import RequestContext
from broker.handlers.describe_configs import broker_layers, topic_config_rows
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed, cluster_allowed
from broker.topic_names import CLUSTER_METADATA_TOPIC, collision_error, collision_index, topic_name_error
from protocol.errors import ErrorCode
from protocol.messages.create_topics_request import (
    CreatableReplicaAssignment,
    CreatableTopic,
    CreateTopicsRequest,
)
from protocol.messages.create_topics_response import (
    CreatableTopicConfigs,
    CreatableTopicResult,
    CreateTopicsResponse,
)
from storage.errors import StorageError, UnknownTopicOrPartitionError
from storage.topic_config import validate_configs

API_KEY = 19

BROKER_COUNT = 1


class TopicError(Exception):
    def __init__(self, code: int, message: str | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def replication_factor_error(replication_factor: int) -> TopicError:
    return TopicError(
        ErrorCode.INVALID_REPLICATION_FACTOR,
        f"Unable to replicate the partition {replication_factor} time(s): The target replication factor of "
        f"{replication_factor} cannot be reached because only {BROKER_COUNT} broker(s) are registered.",
    )


def check_replica_list(broker_ids: list[int], node_id: int, replication_factor: int | None) -> None:
    """Kafka's validateManualPartitionAssignment, where the only registered broker is us."""
    if not broker_ids:
        raise TopicError(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            "The manual partition assignment includes an empty replica list.",
        )
    previous = None
    for broker_id in sorted(broker_ids):
        if broker_id != node_id:
            raise TopicError(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"The manual partition assignment includes broker {broker_id}, but no such broker is registered.",
            )
        if broker_id == previous:
            raise TopicError(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"The manual partition assignment includes the broker {broker_id} more than once.",
            )
        previous = broker_id
    if replication_factor is not None and len(broker_ids) != replication_factor:
        raise TopicError(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            f"The manual partition assignment includes a partition with {len(broker_ids)} replica(s), but this "
            f"is not consistent with previous partitions, which have {replication_factor} replica(s).",
        )


def _manual_partition_count(assignments: list[CreatableReplicaAssignment], node_id: int) -> int:
    seen: set[int] = set()
    replication_factor: int | None = None
    for assignment in assignments:
        if assignment.partition_index in seen:
            raise TopicError(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"Found multiple manual partition assignments for partition {assignment.partition_index}",
            )
        check_replica_list(assignment.broker_ids, node_id, replication_factor)
        replication_factor = len(assignment.broker_ids)
        seen.add(assignment.partition_index)
    if seen != set(range(len(seen))):
        raise TopicError(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            "partitions should be a consecutive 0-based integer sequence",
        )
    return len(seen)


def _partition_count(ctx: RequestContext, topic: CreatableTopic) -> int:
    """Partitions to create, after the replication checks (in Kafka's order)."""
    config = ctx.config
    if topic.assignments:
        if topic.replication_factor != -1:
            raise TopicError(
                ErrorCode.INVALID_REQUEST,
                "A manual partition assignment was specified, but replication factor was not set to -1.",
            )
        if topic.num_partitions != -1:
            raise TopicError(
                ErrorCode.INVALID_REQUEST,
                "A manual partition assignment was specified, but numPartitions was not set to -1.",
            )
        return _manual_partition_count(topic.assignments, ctx.cluster.node_id)
    if topic.replication_factor < -1 or topic.replication_factor == 0:
        raise TopicError(
            ErrorCode.INVALID_REPLICATION_FACTOR,
            "Replication factor must be larger than 0, or -1 to use the default value.",
        )
    if topic.num_partitions < -1 or topic.num_partitions == 0:
        raise TopicError(
            ErrorCode.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value."
        )
    replication_factor = (
        int(config.get("default.replication.factor"))
        if topic.replication_factor == -1
        else topic.replication_factor
    )
    if replication_factor > BROKER_COUNT:
        raise replication_factor_error(replication_factor)
    return int(config.get("num.partitions")) if topic.num_partitions == -1 else topic.num_partitions


def _configs(topic: CreatableTopic) -> dict[str, str | None]:
    configs: dict[str, str | None] = {c.name: c.value for c in topic.configs}
    nulls = [name for name, value in configs.items() if value is None]
    if nulls:
        raise TopicError(
            ErrorCode.INVALID_CONFIG, "Null value not supported for topic configs: " + ",".join(nulls)
        )
    try:
        validate_configs(configs)
    except StorageError as exc:
        raise TopicError(exc.error_code, str(exc)) from None
    return configs


def _exists(ctx: RequestContext, name: str) -> bool:
    try:
        ctx.topics.describe_topic(name)
    except UnknownTopicOrPartitionError:
        return False
    return True


async def _create(
    ctx: RequestContext, topic: CreatableTopic, validate_only: bool, collisions: dict[str, str]
) -> CreatableTopicResult:
    catalog = ctx.topics
    problem = topic_name_error(topic.name)
    if problem is not None:
        raise TopicError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem)
    if _exists(ctx, topic.name):
        raise TopicError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{topic.name}' already exists.")
    collision = collision_error(topic.name, collisions)
    if collision is not None:
        raise TopicError(ErrorCode.INVALID_TOPIC_EXCEPTION, collision)
    configs = _configs(topic)
    num_partitions = _partition_count(ctx, topic)
    try:
        info = await catalog.create_topic(topic.name, num_partitions, configs, validate_only=validate_only)
    except StorageError as exc:
        raise TopicError(exc.error_code, str(exc)) from None
    result = CreatableTopicResult(
        name=topic.name,
        topic_id=info.topic_id,
        error_message=None,
        num_partitions=info.num_partitions,
        replication_factor=BROKER_COUNT,
    )
    if ctx.api_version >= 5:
        # From the returned info rather than the catalog: a validate-only create isn't in it.
        rows = topic_config_rows(info.config.describe(), broker_layers(ctx))
        result.configs = [
            CreatableTopicConfigs(
                name=r.name,
                value=r.value,
                read_only=r.read_only,
                config_source=r.source,
                is_sensitive=r.sensitive,
            )
            for r in rows
        ]
    return result


async def handle(ctx: RequestContext, request: CreateTopicsRequest) -> CreateTopicsResponse:
    counts = Counter(t.name for t in request.topics)
    collisions = collision_index(t.name for t in ctx.topics.list_topics())
    results: list[CreatableTopicResult] = []
    # CREATE on the cluster, or else on each topic (KafkaApis.handleCreateTopicsRequest).
    may_create_any = cluster_allowed(ctx, AclOperation.CREATE)
    for topic in request.topics:
        if counts[topic.name] > 1:
            continue
        if topic.name == CLUSTER_METADATA_TOPIC or not (
            may_create_any or allowed(ctx, AclOperation.CREATE, ResourceType.TOPIC, topic.name)
        ):
            results.append(
                CreatableTopicResult(
                    name=topic.name,
                    error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED,
                    error_message="Authorization failed.",
                )
            )
            continue
        try:
            result = await _create(ctx, topic, request.validate_only, collisions)
        except TopicError as exc:
            result = CreatableTopicResult(name=topic.name, error_code=exc.code, error_message=exc.message)
        results.append(result)
    # Kafka answers each duplicated name once, after the others.
    for name, count in counts.items():
        if count > 1:
            results.append(
                CreatableTopicResult(
                    name=name, error_code=ErrorCode.INVALID_REQUEST, error_message="Duplicate topic name."
                )
            )
    return CreateTopicsResponse(topics=results)
