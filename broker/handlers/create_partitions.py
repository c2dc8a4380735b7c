"""CreatePartitions: grow a topic (never shrink it), with Kafka's controller checks."""

from __future__ import annotations

from collections import Counter

from broker.context import RequestContext
from broker.handlers.create_topics import TopicError, check_replica_list
from broker.security.acl.model import AclOperation, ResourceType
from broker.security.authorization import allowed
from protocol.errors import ErrorCode
from protocol.messages.create_partitions_request import CreatePartitionsRequest, CreatePartitionsTopic
from protocol.messages.create_partitions_response import CreatePartitionsResponse, CreatePartitionsTopicResult
from storage.errors import StorageError, UnknownTopicOrPartitionError

API_KEY = 37

REPLICATION_FACTOR = 1  # every partition of a one-broker cluster has a single replica


async def _grow(ctx: RequestContext, topic: CreatePartitionsTopic, validate_only: bool) -> None:
    catalog = ctx.topics
    try:
        current = catalog.describe_topic(topic.name).num_partitions
    except UnknownTopicOrPartitionError:
        raise TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, None) from None
    if topic.count == current:
        raise TopicError(ErrorCode.INVALID_PARTITIONS, f"Topic already has {current} partition(s).")
    if topic.count < current:
        raise TopicError(
            ErrorCode.INVALID_PARTITIONS,
            f"The topic {topic.name} currently has {current} partition(s); {topic.count} would not be an increase.",
        )
    additional = topic.count - current
    if topic.assignments is not None:
        if len(topic.assignments) != additional:
            raise TopicError(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"Attempted to add {additional} additional partition(s), but only {len(topic.assignments)} "
                "assignment(s) were specified.",
            )
        for assignment in topic.assignments:
            check_replica_list(assignment.broker_ids, ctx.cluster.node_id, REPLICATION_FACTOR)
    try:
        await catalog.create_partitions(topic.name, topic.count, validate_only=validate_only)
    except StorageError as exc:
        raise TopicError(exc.error_code, str(exc)) from None


async def handle(ctx: RequestContext, request: CreatePartitionsRequest) -> CreatePartitionsResponse:
    counts = Counter(t.name for t in request.topics)
    results = []
    for topic in request.topics:
        if counts[topic.name] > 1:
            continue
        result = CreatePartitionsTopicResult(name=topic.name)
        if not allowed(ctx, AclOperation.ALTER, ResourceType.TOPIC, topic.name):
            result.error_code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            result.error_message = "The topic authorization is failed."
            results.append(result)
            continue
        try:
            await _grow(ctx, topic, request.validate_only)
        except TopicError as exc:
            result.error_code = exc.code
            result.error_message = exc.message
        results.append(result)
    for name, count in counts.items():
        if count > 1:
            results.append(
                CreatePartitionsTopicResult(
                    name=name, error_code=ErrorCode.INVALID_REQUEST, error_message="Duplicate topic name."
                )
            )
    return CreatePartitionsResponse(results=results)
