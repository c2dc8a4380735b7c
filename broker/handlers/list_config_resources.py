"""ListConfigResources (KIP-1142; v0 was KIP-714's ListClientMetricsResources): the resources
that have configs, as Kafka's KafkaApis lists them, one resource type after another."""

from __future__ import annotations

from broker.context import RequestContext
from broker.handlers.describe_configs import BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP, TOPIC
from broker.security.acl.model import AclOperation
from broker.security.authorization import cluster_allowed
from protocol.errors import ErrorCode
from protocol.messages.list_config_resources_request import ListConfigResourcesRequest
from protocol.messages.list_config_resources_response import ConfigResource, ListConfigResourcesResponse

API_KEY = 74

# What each version may ask for: v0 knows client metrics subscriptions only.
_SUPPORTED = {0: (CLIENT_METRICS,), 1: (TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP)}


async def handle(ctx: RequestContext, request: ListConfigResourcesRequest) -> ListConfigResourcesResponse:
    if not cluster_allowed(ctx, AclOperation.DESCRIBE_CONFIGS):
        return ListConfigResourcesResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    supported = _SUPPORTED[min(ctx.api_version, 1)]
    wanted = set(request.resource_types or supported)
    if not wanted <= set(supported):
        return ListConfigResourcesResponse(error_code=ErrorCode.UNSUPPORTED_VERSION)
    found: list[ConfigResource] = []
    if GROUP in wanted:
        found += [ConfigResource(g, GROUP) for g in ctx.dynamic_configs.groups]
    # CLIENT_METRICS: this broker keeps no KIP-714 subscriptions.
    brokers = [str(b.node_id) for b in ctx.cluster.live_brokers(ctx.connection.listener)]
    if BROKER_LOGGER in wanted:
        found += [ConfigResource(b, BROKER_LOGGER) for b in brokers]
    if BROKER in wanted:
        found += [ConfigResource(b, BROKER) for b in brokers]
    if TOPIC in wanted:
        found += [ConfigResource(t.name, TOPIC) for t in ctx.topics.list_topics()]
    return ListConfigResourcesResponse(config_resources=found)
