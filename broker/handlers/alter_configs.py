"""AlterConfigs (the legacy, whole-resource form): a topic's overrides, or a broker's
dynamic configs (broker/dynamic_config.py), become exactly the given set.

The checks follow Kafka: the broker's preprocessing (duplicates, nulls, broker resources),
then the controller's (topic name, config validation, existence) for topics
(broker/handlers/config_alteration.py).
"""

from __future__ import annotations

from broker.context import RequestContext
from broker.handlers.config_alteration import (
    ResourceError,
    alter_resources,
    apply_broker_changes,
    apply_topic_changes,
    check_broker_name,
    check_topic_name,
)
from broker.handlers.describe_configs import BROKER, TOPIC
from protocol.errors import ErrorCode
from protocol.messages.alter_configs_request import AlterConfigsRequest, AlterConfigsResource
from protocol.messages.alter_configs_response import AlterConfigsResourceResponse, AlterConfigsResponse

API_KEY = 33


async def handle(ctx: RequestContext, request: AlterConfigsRequest) -> AlterConfigsResponse:
    async def alter(resource: AlterConfigsResource) -> None:
        changes = {c.name: c.value for c in resource.configs}
        if resource.resource_type == BROKER:
            check_broker_name(resource.resource_name, ctx.cluster.node_id)
            props = {k: v for k, v in changes.items() if v is not None}
            await apply_broker_changes(
                ctx, resource.resource_name, lambda current: props, validate_only=request.validate_only
            )
        elif resource.resource_type == TOPIC:
            check_topic_name(resource.resource_name)
            await apply_topic_changes(
                ctx, resource.resource_name, changes, replace=True, validate_only=request.validate_only
            )
        else:
            raise ResourceError(ErrorCode.INVALID_REQUEST, f"Unknown resource type {resource.resource_type}")

    outcomes = await alter_resources(
        ctx,
        request.resources,
        null_names=lambda resource: (c.name for c in resource.configs if c.value is None),
        alter=alter,
    )
    return AlterConfigsResponse(
        responses=[
            AlterConfigsResourceResponse(
                error_code=code,
                error_message=message,
                resource_type=resource.resource_type,
                resource_name=resource.resource_name,
            )
            for resource, (code, message) in zip(request.resources, outcomes, strict=True)
        ]
    )
