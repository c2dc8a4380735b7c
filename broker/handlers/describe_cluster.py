"""DescribeCluster: the live brokers (this one alone outside a cluster), as the listener the
client came in on advertises them, and the controller."""

from __future__ import annotations

from broker.authorized_operations import OMITTED, ResourceType, authorized_operations
from broker.context import RequestContext
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.describe_cluster_request import DescribeClusterRequest
from protocol.messages.describe_cluster_response import DescribeClusterBroker, DescribeClusterResponse

API_KEY = 60

ENDPOINT_BROKER = 1
ENDPOINT_CONTROLLER = 2
ENDPOINT_NAMES = {ENDPOINT_BROKER: "BROKER", ENDPOINT_CONTROLLER: "CONTROLLER"}

CLUSTER_NAME = "kafka-cluster"


async def handle(ctx: RequestContext, request: DescribeClusterRequest) -> DescribeClusterResponse:
    endpoint_type = request.endpoint_type if ctx.api_version >= 1 else ENDPOINT_BROKER
    if endpoint_type not in ENDPOINT_NAMES:
        return DescribeClusterResponse(
            error_code=ErrorCode.UNSUPPORTED_ENDPOINT_TYPE,
            error_message=f"Unsupported endpoint type {endpoint_type}",
        )
    if endpoint_type != ENDPOINT_BROKER:
        return DescribeClusterResponse(
            error_code=ErrorCode.MISMATCHED_ENDPOINT_TYPE,
            error_message="The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type "
            + ENDPOINT_NAMES[endpoint_type],
        )
    cluster = ctx.cluster
    return DescribeClusterResponse(
        endpoint_type=ENDPOINT_BROKER,
        cluster_id=cluster.cluster_id,
        controller_id=cluster.controller_id,
        brokers=[
            DescribeClusterBroker(broker_id=b.node_id, host=b.host, port=b.port, rack=b.rack, is_fenced=False)
            for b in cluster.live_brokers(ctx.connection.listener)
        ],
        cluster_authorized_operations=(
            # Kafka's AuthHelper.computeDescribeClusterResponse: 0 without DESCRIBE on the cluster.
            (authorized_operations(ctx, ResourceType.CLUSTER, CLUSTER_NAME)
             if cluster_allowed(ctx, AclOperation.DESCRIBE) else 0)
            if request.include_cluster_authorized_operations
            else OMITTED
        ),
    )
