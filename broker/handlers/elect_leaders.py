"""ElectLeaders (KIP-183, KIP-460): with one broker, each partition's only replica is its
leader and its preferred replica at once, so no election is ever needed.

As Kafka's controller (`ReplicationControlManager.electLeaders`): ELECTION_NOT_NEEDED for
a partition that has its preferred leader (preferred election) or any leader (unclean
election), UNKNOWN_TOPIC_OR_PARTITION for one that does not exist; with a null partition
list, every topic is listed and partitions needing no election are left out."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.elect_leaders_request import ElectLeadersRequest
from protocol.messages.elect_leaders_response import (
    ElectLeadersResponse,
    PartitionResult,
    ReplicaElectionResult,
)
from storage.errors import UnknownTopicOrPartitionError

API_KEY = 43
PREFERRED, UNCLEAN = 0, 1
# Kafka's message for the error (`Errors.ELECTION_NOT_NEEDED`).
ELECTION_NOT_NEEDED_MESSAGE = "Leader election not needed for topic partition."


def _elect(ctx: RequestContext, topic: str, partition: int) -> PartitionResult:
    try:
        info = ctx.topics.describe_topic(topic)
    except UnknownTopicOrPartitionError:
        return PartitionResult(partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"No such topic as {topic}")
    if not 0 <= partition < info.num_partitions:
        return PartitionResult(
            partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"No such partition as {topic}-{partition}"
        )
    return PartitionResult(partition, ErrorCode.ELECTION_NOT_NEEDED, ELECTION_NOT_NEEDED_MESSAGE)


async def handle(ctx: RequestContext, request: ElectLeadersRequest) -> ElectLeadersResponse:
    if not cluster_allowed(ctx, AclOperation.ALTER):
        # Kafka's ElectLeadersRequest.getErrorResponse: the error at the top and per partition.
        code = ErrorCode.CLUSTER_AUTHORIZATION_FAILED
        return ElectLeadersResponse(error_code=code, replica_election_results=[
            ReplicaElectionResult(topic=t.topic, partition_result=[PartitionResult(p, code, None) for p in t.partitions])
            for t in request.topic_partitions or []])
    if request.election_type not in (PREFERRED, UNCLEAN):
        return ElectLeadersResponse(error_code=ErrorCode.INVALID_REQUEST)
    if request.topic_partitions is None:
        # Every partition has its leader already: each topic, with no partition listed.
        results = [ReplicaElectionResult(topic=t.name) for t in sorted(ctx.topics.list_topics(),
                                                                       key=lambda t: t.name)]
        return ElectLeadersResponse(error_code=ErrorCode.NONE, replica_election_results=results)
    return ElectLeadersResponse(
        error_code=ErrorCode.NONE,
        replica_election_results=[
            ReplicaElectionResult(topic=t.topic, partition_result=[_elect(ctx, t.topic, p) for p in t.partitions])
            for t in request.topic_partitions
        ],
    )
