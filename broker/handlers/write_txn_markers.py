"""WriteTxnMarkers v0-v2: COMMIT/ABORT markers sent to this broker as a partition leader.

Kafka's transaction coordinators send it to partition leaders; the admin client sends it
to abort a hanging transaction (`kafka-transactions.sh abort`). The data plane
writes them (broker/dataplane/replica_manager.py), through the same code path as the
in-process coordinator's (storage.txn_markers).
"""

from __future__ import annotations

from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.write_txn_markers_request import WriteTxnMarkersRequest
from protocol.messages.write_txn_markers_response import (
    WritableTxnMarkerPartitionResult,
    WritableTxnMarkerResult,
    WritableTxnMarkerTopicResult,
    WriteTxnMarkersResponse,
)
from storage.txn_markers import MarkerListener

API_KEY = 27


async def handle(ctx: RequestContext, request: WriteTxnMarkersRequest) -> WriteTxnMarkersResponse:
    # Markers reaching `__consumer_offsets` settle the group coordinator's pending offsets.
    listeners: list[MarkerListener] = [ctx.groups.on_txn_marker]
    results: list[WritableTxnMarkerResult] = []
    # Only brokers write markers (CLUSTER_ACTION on the cluster).
    may_write = cluster_allowed(ctx, AclOperation.CLUSTER_ACTION)
    for marker in request.markers:
        partitions = [(t.name, p) for t in marker.topics for p in t.partition_indexes]
        if not may_write:
            errors: dict[tuple[str, int], int] = dict.fromkeys(partitions, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
        else:
            errors = await ctx.data_plane.write_txn_markers(
                producer_id=marker.producer_id,
                producer_epoch=marker.producer_epoch,
                coordinator_epoch=marker.coordinator_epoch,
                committed=marker.transaction_result,
                partitions=partitions,
                listeners=listeners,
                transaction_version=marker.transaction_version if ctx.api_version >= 2 else 0,
            )
        results.append(
            WritableTxnMarkerResult(
                producer_id=marker.producer_id,
                topics=[
                    WritableTxnMarkerTopicResult(
                        name=t.name,
                        partitions=[
                            WritableTxnMarkerPartitionResult(partition_index=p, error_code=errors[(t.name, p)])
                            for p in t.partition_indexes
                        ],
                    )
                    for t in marker.topics
                ],
            )
        )
    return WriteTxnMarkersResponse(markers=results)
