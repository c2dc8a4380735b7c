"""AlterPartitionReassignments: with one broker the only placement is the one every
partition already has, so a reassignment to it succeeds without changing anything and
any other replica list is refused, with the checks and messages of Kafka's
`ReplicationControlManager.alterPartitionReassignment`."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.alter_partition_reassignments_request import (
    AlterPartitionReassignmentsRequest,
    ReassignablePartition,
)
from protocol.messages.alter_partition_reassignments_response import (
    AlterPartitionReassignmentsResponse,
    ReassignablePartitionResponse,
    ReassignableTopicResponse,
)
from storage.errors import UnknownTopicOrPartitionError

API_KEY = 45

NO_REASSIGNMENT_MESSAGE = "No partition reassignment is in progress."


class PartitionError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_target(replicas: list[int], registered: set[int]) -> None:
    """Kafka's `validateManualPartitionAssignment`: brokers are checked in id order."""
    if not replicas:
        raise PartitionError(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes an empty replica list."
        )
    previous: int | None = None
    for broker_id in sorted(replicas):
        if broker_id not in registered:
            raise PartitionError(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"The manual partition assignment includes broker {broker_id}, but no such broker is registered.",
            )
        if broker_id == previous:
            raise PartitionError(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"The manual partition assignment includes the broker {broker_id} more than once.",
            )
        previous = broker_id


def _reassign(ctx: RequestContext, topic: str, target: ReassignablePartition) -> None:
    try:
        info = ctx.topics.describe_topic(topic)
    except UnknownTopicOrPartitionError:
        raise PartitionError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Unable to find a topic named {topic}.") from None
    if not 0 <= target.partition_index < info.num_partitions:
        raise PartitionError(
            ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Unable to find partition {topic}:{target.partition_index}."
        )
    if target.replicas is None:
        # A reassignment completes the moment it is accepted, so none is ever pending.
        raise PartitionError(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, NO_REASSIGNMENT_MESSAGE)
    check_target(target.replicas, {ctx.cluster.node_id})


async def handle(
    ctx: RequestContext, request: AlterPartitionReassignmentsRequest
) -> AlterPartitionReassignmentsResponse:
    if not cluster_allowed(ctx, AclOperation.ALTER):
        # Kafka's AlterPartitionReassignmentsRequest.getErrorResponse: the error everywhere.
        code = ErrorCode.CLUSTER_AUTHORIZATION_FAILED
        return AlterPartitionReassignmentsResponse(error_code=code, error_message=None, responses=[
            ReassignableTopicResponse(name=t.name, partitions=[
                ReassignablePartitionResponse(partition_index=p.partition_index, error_code=code, error_message=None)
                for p in t.partitions])
            for t in request.topics])
    responses = []
    for topic in request.topics:
        partitions = []
        for target in topic.partitions:
            result = ReassignablePartitionResponse(partition_index=target.partition_index, error_message=None)
            try:
                _reassign(ctx, topic.name, target)
            except PartitionError as exc:
                result.error_code = exc.code
                result.error_message = exc.message
            partitions.append(result)
        responses.append(ReassignableTopicResponse(name=topic.name, partitions=partitions))
    return AlterPartitionReassignmentsResponse(
        allow_replication_factor_change=request.allow_replication_factor_change,
        error_message=None,
        responses=responses,
    )
