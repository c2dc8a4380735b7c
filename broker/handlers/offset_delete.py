"""OffsetDelete: drop committed offsets of topics the group no longer consumes."""

from __future__ import annotations

from broker.context import RequestContext
from broker.group_support import group_coordinator
from protocol.errors import ErrorCode
from protocol.messages.offset_delete_request import OffsetDeleteRequest
from protocol.messages.offset_delete_response import (
    OffsetDeleteResponse,
    OffsetDeleteResponsePartition,
    OffsetDeleteResponseTopic,
)

API_KEY = 47


async def handle(ctx: RequestContext, request: OffsetDeleteRequest) -> OffsetDeleteResponse:
    coordinator = group_coordinator(ctx)
    partitions = [(t.name, p.partition_index) for t in request.topics for p in t.partitions]
    error, results = await coordinator.delete_offsets(request.group_id, partitions)
    if error is not ErrorCode.NONE:
        return OffsetDeleteResponse(error_code=error)
    return OffsetDeleteResponse(
        topics=[
            OffsetDeleteResponseTopic(name=t.name, partitions=[
                OffsetDeleteResponsePartition(partition_index=p.partition_index,
                                              error_code=results[(t.name, p.partition_index)])
                for p in t.partitions
            ])
            for t in request.topics
        ]
    )
