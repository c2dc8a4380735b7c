"""Metadata: this single broker, and the topics it holds."""

from __future__ import annotations

from broker.context import RequestContext
from protocol.messages.metadata_request import MetadataRequest
from protocol.messages.metadata_response import MetadataResponse, MetadataResponseBroker

API_KEY = 3


async def handle(ctx: RequestContext, request: MetadataRequest) -> MetadataResponse:
    services = ctx.services
    listener = services.advertised_listener(ctx.connection.listener)
    response = MetadataResponse(
        brokers=[MetadataResponseBroker(node_id=services.node_id, host=listener.host, port=listener.port, rack=None)],
        cluster_id=services.cluster_id,
        controller_id=services.node_id,
        topics=[],
    )
    return response
