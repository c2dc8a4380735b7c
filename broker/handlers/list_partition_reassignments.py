"""ListPartitionReassignments: a single broker completes every reassignment as it is
accepted, so none is ever in progress; like Kafka, unknown topics and partitions are
left out rather than reported."""

from __future__ import annotations

from broker.context import RequestContext
from protocol.messages.list_partition_reassignments_request import ListPartitionReassignmentsRequest
from protocol.messages.list_partition_reassignments_response import ListPartitionReassignmentsResponse

API_KEY = 46


async def handle(
    ctx: RequestContext, request: ListPartitionReassignmentsRequest
) -> ListPartitionReassignmentsResponse:
    return ListPartitionReassignmentsResponse(error_message=None, topics=[])
