"""IncrementalAlterConfigs: SET, DELETE, APPEND and SUBTRACT single configs of a topic, a
broker (its dynamic configs, or the cluster-wide defaults), a group (KIP-848) or the
broker's loggers (BROKER_LOGGER: SET and DELETE of a level, broker/logger_levels.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from broker import logger_levels
from broker.context import RequestContext
from broker.dynamic_config import DYNAMIC_CONFIGS
from broker.group_config import validate_group_configs
from broker.handlers.config_alteration import (
    ResourceError,
    alter_resources,
    apply_broker_changes,
    apply_topic_changes,
    check_broker_name,
    check_topic_name,
)
from broker.handlers.describe_configs import BROKER, BROKER_LOGGER, GROUP, TOPIC
from protocol.errors import ErrorCode
from protocol.messages.incremental_alter_configs_request import (
    AlterableConfig,
    AlterConfigsResource,
    IncrementalAlterConfigsRequest,
)
from protocol.messages.incremental_alter_configs_response import (
    AlterConfigsResourceResponse,
    IncrementalAlterConfigsResponse,
)
from storage.errors import ConfigError, KafkaStorageError, UnknownTopicOrPartitionError
from storage.topic_config import CONFIG_DEFS, ConfigType

API_KEY = 44

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
OP_NAMES = {SET: "SET", DELETE: "DELETE", APPEND: "APPEND", SUBTRACT: "SUBTRACT"}


def _check_ops(configs: list[AlterableConfig]) -> None:
    for c in configs:
        if c.config_operation not in OP_NAMES:
            raise ResourceError(ErrorCode.INVALID_REQUEST, f"Unknown operations type {c.config_operation}")


def _list_change(op: int, current: str, value: str | None) -> str:
    """APPEND adds the items not there yet; SUBTRACT removes the given ones."""
    items = [i for i in current.split(",") if i]
    given = (value or "").split(",")
    if op == APPEND:
        items += [v for v in dict.fromkeys(given) if v not in items]
    else:
        items = [i for i in items if i not in given]
    return ",".join(items)


def _changed(
    current: Mapping[str, str],
    configs: list[AlterableConfig],
    list_change: Callable[[Mapping[str, str], AlterableConfig], str],
) -> dict[str, str]:
    """The resource's configs after SET and DELETE; APPEND and SUBTRACT by `list_change`."""
    props = dict(current)
    for c in configs:
        if c.config_operation == SET:
            props[c.name] = c.value or ""
        elif c.config_operation == DELETE:
            props.pop(c.name, None)
        else:
            props[c.name] = list_change(props, c)
    return props


async def _broker_changes(
    ctx: RequestContext, name: str, configs: list[AlterableConfig], validate_only: bool
) -> None:
    """Kafka's `ConfigAdminManager.prepareIncrementalConfigs` over the resource's current
    dynamic configs, then the same checks and storage as the legacy AlterConfigs."""
    check_broker_name(name, ctx.cluster.node_id)
    _check_ops(configs)

    def list_change(props: Mapping[str, str], c: AlterableConfig) -> str:
        definition = DYNAMIC_CONFIGS.get(c.name)
        if definition is None or definition.type != ConfigType.LIST:
            raise ResourceError(
                ErrorCode.INVALID_CONFIG,
                f"Config value {OP_NAMES[c.config_operation].lower()} is not allowed for config key: {c.name}",
            )
        return _list_change(c.config_operation, props.get(c.name, definition.default or ""), c.value)

    def change(current: Mapping[str, str]) -> dict[str, str]:
        return _changed(current, configs, list_change)

    await apply_broker_changes(ctx, name, change, validate_only=validate_only)


async def _group_changes(
    ctx: RequestContext, group: str, configs: list[AlterableConfig], validate_only: bool
) -> None:
    """A group's overrides changed and the result checked as Kafka's `GroupConfig.validate`
    (on PostgreSQL, in the transaction that changes the cluster's group configs as stored)."""
    if not group:
        raise ResourceError(ErrorCode.INVALID_REQUEST, "Group name must not be empty")
    _check_ops(configs)

    def list_change(_props: Mapping[str, str], c: AlterableConfig) -> str:
        # No group config is a list.
        raise ResourceError(
            ErrorCode.INVALID_CONFIG,
            f"Can't {OP_NAMES[c.config_operation]} to key {c.name} because its type is not LIST.",
        )

    def change(current: Mapping[str, str]) -> dict[str, str]:
        props = _changed(current, configs, list_change)
        try:
            validate_group_configs(props)
        except ConfigError as exc:
            raise ResourceError(ErrorCode.INVALID_CONFIG, str(exc)) from None
        return props

    dynamic = ctx.dynamic_configs
    if validate_only:
        change(dynamic.groups.get(group, {}))
        return
    try:
        await dynamic.change_group(group, change)
    except (OSError, KafkaStorageError) as exc:
        raise ResourceError(ErrorCode.KAFKA_STORAGE_ERROR, f"Cannot store group configs: {exc}") from None


def _logger_changes(ctx: RequestContext, name: str, configs: list[AlterableConfig], validate_only: bool) -> None:
    """Kafka's RuntimeLoggerManager: the node id, then every change checked before any is made."""
    try:
        node_id = int(name)
    except ValueError:
        raise ResourceError(ErrorCode.INVALID_REQUEST, f"Node id must be an integer, but it is: {name}") from None
    if node_id != ctx.cluster.node_id:
        # Kafka 4.0's text, which names its own id twice.
        node = ctx.cluster.node_id
        raise ResourceError(ErrorCode.INVALID_REQUEST, f"Unexpected node id. Expected {node}, but received {node}")
    for c in configs:
        op = c.config_operation
        if op in (APPEND, SUBTRACT):
            raise ResourceError(
                ErrorCode.INVALID_REQUEST, f"{OP_NAMES[op]} operation is not allowed for the BROKER_LOGGER resource")
        if op not in OP_NAMES:
            raise ResourceError(
                ErrorCode.INVALID_REQUEST, f"Unknown operation type {op} is not allowed for the BROKER_LOGGER resource")
        if not logger_levels.exists(c.name):
            raise ResourceError(ErrorCode.INVALID_CONFIG, f"Logger {c.name} does not exist!")
        if op == SET and not logger_levels.valid_level(c.value):
            raise ResourceError(
                ErrorCode.INVALID_CONFIG,
                f"Cannot set the log level of {c.name} to {c.value} as it is not a supported log level. "
                f"Valid log levels are {logger_levels.VALID_LEVELS_TEXT}",
            )
        if op == DELETE and c.name == logger_levels.ROOT:
            raise ResourceError(ErrorCode.INVALID_REQUEST, "Removing the log level of the root logger is not allowed")
    if validate_only:
        return
    for c in configs:
        if c.config_operation == SET:
            logger_levels.set_level(c.name, c.value or "")
        else:
            logger_levels.unset_level(c.name)


def _current(ctx: RequestContext, topic: str, name: str) -> str:
    """The value an APPEND or SUBTRACT starts from: the override, else the default."""
    try:
        config = ctx.topics.describe_topic(topic).config
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
            changes[c.name] = _list_change(op, _current(ctx, topic, c.name), c.value)
    return changes


async def handle(
    ctx: RequestContext, request: IncrementalAlterConfigsRequest
) -> IncrementalAlterConfigsResponse:
    async def alter(resource: AlterConfigsResource) -> None:
        if resource.resource_type == BROKER:
            await _broker_changes(ctx, resource.resource_name, resource.configs, request.validate_only)
        elif resource.resource_type == TOPIC:
            check_topic_name(resource.resource_name)
            changes = _topic_changes(ctx, resource.resource_name, resource.configs)
            await apply_topic_changes(
                ctx, resource.resource_name, changes, replace=False, validate_only=request.validate_only
            )
        elif resource.resource_type == GROUP:
            await _group_changes(ctx, resource.resource_name, resource.configs, request.validate_only)
        elif resource.resource_type == BROKER_LOGGER:
            _logger_changes(ctx, resource.resource_name, resource.configs, request.validate_only)
        else:
            raise ResourceError(ErrorCode.INVALID_REQUEST, f"Unknown resource type {resource.resource_type}")

    outcomes = await alter_resources(
        ctx,
        request.resources,
        null_names=lambda resource: (
            c.name for c in resource.configs if c.config_operation != DELETE and c.value is None
        ),
        alter=alter,
    )
    return IncrementalAlterConfigsResponse(
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
