"""AlterConfigs (the legacy, whole-resource form): a topic's overrides, or a broker's
dynamic configs (broker/dynamic_config.py), become exactly the given set.

The checks follow Kafka: the broker's preprocessing (duplicates, nulls, broker resources),
then the controller's (topic name, config validation, existence) for topics.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from broker.config import SETTINGS
from broker.context import RequestContext
from broker.dynamic_config import DynamicConfigError, validate_broker_configs
from broker.handlers.describe_configs import BROKER, TOPIC
from broker.security.acl.model import AclOperation
from broker.security.config_resources import config_denied
from broker.topic_names import topic_name_error
from protocol.errors import ErrorCode
from protocol.messages.alter_configs_request import AlterConfigsRequest
from protocol.messages.alter_configs_response import AlterConfigsResourceResponse, AlterConfigsResponse
from storage.errors import StorageError, UnknownTopicOrPartitionError
from storage.topic_config import validate_configs

API_KEY = 33


class ResourceError(Exception):
    def __init__(self, code: int, message: str | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Resource(Protocol):
    resource_type: int
    resource_name: str


def duplicate_resources(resources: Sequence[Resource]) -> set[tuple[int, str]]:
    counts = Counter((r.resource_type, r.resource_name) for r in resources)
    return {key for key, count in counts.items() if count > 1}


def check_keys(names: Iterable[str], null_names: Iterable[str]) -> None:
    names = list(names)
    if len(set(names)) != len(names):
        raise ResourceError(ErrorCode.INVALID_REQUEST, "Error due to duplicate config keys")
    nulls = list(null_names)
    if nulls:
        raise ResourceError(ErrorCode.INVALID_REQUEST, "Null value not supported for : " + ", ".join(nulls))


def check_broker_name(name: str, node_id: int) -> None:
    if not name:
        return
    try:
        broker_id = int(name)
    except ValueError:
        raise ResourceError(
            ErrorCode.INVALID_REQUEST, f"Node id must be an integer, but it is: {name}"
        ) from None
    if broker_id != node_id:
        raise ResourceError(
            ErrorCode.INVALID_REQUEST, f"Unexpected broker id, expected {node_id}, but received {name}"
        )


def validate_broker_changes(props: Mapping[str, str], per_broker: bool) -> None:
    """The resulting dynamic configs of a broker resource, checked as Kafka's
    `ConfigAdminManager.validateBrokerConfigChange` does (INVALID_REQUEST when refused)."""
    try:
        validate_broker_configs(props, frozenset(SETTINGS), per_broker)
    except DynamicConfigError as exc:
        raise ResourceError(ErrorCode.INVALID_REQUEST, str(exc)) from None


async def apply_broker_changes(
    ctx: RequestContext, name: str, props: Mapping[str, str], *, validate_only: bool
) -> None:
    """Replace the dynamic configs of this broker (`name` = its id) or of the cluster-wide
    defaults (`name` empty) with `props`."""
    per_broker = bool(name)
    validate_broker_changes(props, per_broker)
    dynamic = ctx.dynamic_configs
    if validate_only:
        return
    try:
        await dynamic.replace_broker(per_broker, props)
    except OSError as exc:
        raise ResourceError(ErrorCode.KAFKA_STORAGE_ERROR, f"Cannot store dynamic configs: {exc}") from None


def check_topic_name(name: str) -> None:
    if not name:
        raise ResourceError(ErrorCode.INVALID_REQUEST, "Default topic resources are not allowed.")
    problem = topic_name_error(name)
    if problem is not None:
        raise ResourceError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem)


def validate_topic_changes(changes: Mapping[str, str | None]) -> None:
    try:
        validate_configs(changes)
    except StorageError as exc:
        raise ResourceError(exc.error_code, str(exc)) from None


def check_topic_exists(ctx: RequestContext, name: str) -> None:
    try:
        ctx.storage.describe_topic(name)
    except UnknownTopicOrPartitionError:
        raise ResourceError(
            ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist."
        ) from None


async def apply_topic_changes(
    ctx: RequestContext, name: str, changes: Mapping[str, str | None], *, replace: bool, validate_only: bool
) -> None:
    validate_topic_changes(changes)
    check_topic_exists(ctx, name)
    try:
        await ctx.storage.alter_topic_configs(
            name, changes, replace=replace, validate_only=validate_only
        )
    except StorageError as exc:
        raise ResourceError(exc.error_code, str(exc)) from None


async def handle(ctx: RequestContext, request: AlterConfigsRequest) -> AlterConfigsResponse:
    duplicates = duplicate_resources(request.resources)
    responses = []
    for resource in request.resources:
        response = AlterConfigsResourceResponse(
            resource_type=resource.resource_type, resource_name=resource.resource_name, error_message=None
        )
        try:
            if (resource.resource_type, resource.resource_name) in duplicates:
                raise ResourceError(ErrorCode.INVALID_REQUEST, "Each resource must appear at most once.")
            denied = config_denied(ctx, AclOperation.ALTER_CONFIGS, resource.resource_type, resource.resource_name)
            if denied is not None:
                raise ResourceError(denied, None)
            check_keys(
                (c.name for c in resource.configs), (c.name for c in resource.configs if c.value is None)
            )
            changes = {c.name: c.value for c in resource.configs}
            if resource.resource_type == BROKER:
                check_broker_name(resource.resource_name, ctx.cluster.node_id)
                await apply_broker_changes(
                    ctx,
                    resource.resource_name,
                    {k: v for k, v in changes.items() if v is not None},
                    validate_only=request.validate_only,
                )
            elif resource.resource_type == TOPIC:
                check_topic_name(resource.resource_name)
                await apply_topic_changes(
                    ctx, resource.resource_name, changes, replace=True, validate_only=request.validate_only
                )
            else:
                raise ResourceError(
                    ErrorCode.INVALID_REQUEST, f"Unknown resource type {resource.resource_type}"
                )
        except ResourceError as exc:
            response.error_code = exc.code
            response.error_message = exc.message
        responses.append(response)
    return AlterConfigsResponse(responses=responses)
