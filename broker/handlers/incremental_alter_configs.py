"""IncrementalAlterConfigs: SET, DELETE, APPEND and SUBTRACT single topic configs."""

from __future__ import annotations

from broker.context import RequestContext
from broker.handlers.alter_configs import (
    ResourceError,
    apply_topic_changes,
    check_broker_name,
    check_keys,
    check_topic_name,
    duplicate_resources,
    refuse_static_broker_configs,
)
from broker.handlers.describe_configs import BROKER, TOPIC
from protocol.errors import ErrorCode
from protocol.messages.incremental_alter_configs_request import (
    AlterableConfig,
    IncrementalAlterConfigsRequest,
)
from protocol.messages.incremental_alter_configs_response import (
    AlterConfigsResourceResponse,
    IncrementalAlterConfigsResponse,
)
from storage.errors import UnknownTopicOrPartitionError
from storage.topic_config import CONFIG_DEFS, ConfigType

API_KEY = 44

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
OP_NAMES = {SET: "SET", DELETE: "DELETE", APPEND: "APPEND", SUBTRACT: "SUBTRACT"}


def _check_ops(configs: list[AlterableConfig]) -> None:
    for c in configs:
        if c.config_operation not in OP_NAMES:
            raise ResourceError(ErrorCode.INVALID_REQUEST, f"Unknown operations type {c.config_operation}")


def _broker_changes(ctx: RequestContext, name: str, configs: list[AlterableConfig]) -> None:
    check_broker_name(name, ctx.services.node_id)
    _check_ops(configs)
    for c in configs:
        # No broker setting is a list, so none can be appended to or subtracted from.
        if c.config_operation in (APPEND, SUBTRACT):
            raise ResourceError(
                ErrorCode.INVALID_CONFIG,
                f"Config value {OP_NAMES[c.config_operation].lower()} is not allowed for config key: {c.name}",
            )
    # Deleting a dynamic setting that was never set changes nothing.
    refuse_static_broker_configs(c.name for c in configs if c.config_operation == SET)


def _current(ctx: RequestContext, topic: str, name: str) -> str:
    """The value an APPEND or SUBTRACT starts from: the override, else the default."""
    try:
        config = ctx.services.storage.describe_topic(topic).config
    except UnknownTopicOrPartitionError:
        return CONFIG_DEFS[name].default
    return config.overrides.get(name, CONFIG_DEFS[name].default)


def _topic_changes(ctx: RequestContext, topic: str, configs: list[AlterableConfig]) -> dict[str, str | None]:
    _check_ops(configs)
    changes: dict[str, str | None] = {}
    for c in configs:
        op = c.config_operation
        if op == SET:
            changes[c.name] = c.value
        elif op == DELETE:
            # Kafka validates the resulting config, where a deleted unknown name is simply absent.
            if c.name in CONFIG_DEFS:
                changes[c.name] = None
        else:
            definition = CONFIG_DEFS.get(c.name)
            if definition is None or definition.type != ConfigType.LIST:
                raise ResourceError(
                    ErrorCode.INVALID_CONFIG,
                    f"Can't {OP_NAMES[op]} to key {c.name} because its type is not LIST.",
                )
            items = [i for i in _current(ctx, topic, c.name).split(",") if i]
            given = (c.value or "").split(",")
            if op == APPEND:
                items += [v for v in dict.fromkeys(given) if v not in items]
            else:
                items = [i for i in items if i not in given]
            changes[c.name] = ",".join(items)
    return changes


async def handle(
    ctx: RequestContext, request: IncrementalAlterConfigsRequest
) -> IncrementalAlterConfigsResponse:
    duplicates = duplicate_resources(request.resources)
    responses = []
    for resource in request.resources:
        response = AlterConfigsResourceResponse(
            resource_type=resource.resource_type, resource_name=resource.resource_name, error_message=None
        )
        try:
            if (resource.resource_type, resource.resource_name) in duplicates:
                raise ResourceError(ErrorCode.INVALID_REQUEST, "Each resource must appear at most once.")
            check_keys(
                (c.name for c in resource.configs),
                (c.name for c in resource.configs if c.config_operation != DELETE and c.value is None),
            )
            if resource.resource_type == BROKER:
                _broker_changes(ctx, resource.resource_name, resource.configs)
            elif resource.resource_type == TOPIC:
                check_topic_name(resource.resource_name)
                changes = _topic_changes(ctx, resource.resource_name, resource.configs)
                await apply_topic_changes(
                    ctx, resource.resource_name, changes, replace=False, validate_only=request.validate_only
                )
            else:
                raise ResourceError(
                    ErrorCode.INVALID_REQUEST, f"Unknown resource type {resource.resource_type}"
                )
        except ResourceError as exc:
            response.error_code = exc.code
            response.error_message = exc.message
        responses.append(response)
    return IncrementalAlterConfigsResponse(responses=responses)
