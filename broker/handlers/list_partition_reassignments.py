"""ListPartitionReassignments: a single broker completes every reassignment as it is
accepted, so none is ever in progress; like Kafka, unknown topics and partitions are
left out rather than reported."""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.list_partition_reassignments_request import ListPartitionReassignmentsRequest
from protocol.messages.list_partition_reassignments_response import ListPartitionReassignmentsResponse

API_KEY = 46


async def handle(
    ctx: RequestContext, request: ListPartitionReassignmentsRequest
) -> ListPartitionReassignmentsResponse:
    if not cluster_allowed(ctx, AclOperation.DESCRIBE):
        return ListPartitionReassignmentsResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, topics=[])
    return ListPartitionReassignmentsResponse(error_message=None, topics=[])
