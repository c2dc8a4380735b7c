"""What AlterConfigs and IncrementalAlterConfigs share: the per-resource loop and its
checks, in Kafka's order (the broker's preprocessing: duplicates, ACLs, keys; then each
resource type's own), and the storage of a topic's or a broker's resulting configs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Protocol, TypeVar

from broker.config import SETTINGS
from broker.context import RequestContext
from broker.dynamic_config import DynamicConfigError, PropsChange, validate_broker_configs
from broker.security.acl.model import AclOperation
from broker.security.config_resources import config_denied
from broker.topic_names import topic_name_error
from protocol.errors import ErrorCode
from storage.errors import KafkaStorageError, StorageError, UnknownTopicOrPartitionError
from storage.topic_config import validate_configs


class ResourceError(Exception):
    def __init__(self, code: int, message: str | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _NamedConfig(Protocol):
    @property
    def name(self) -> str: ...


class Resource(Protocol):
    """A resource of AlterConfigs or IncrementalAlterConfigs."""

    @property
    def resource_type(self) -> int: ...

    @property
    def resource_name(self) -> str: ...

    @property
    def configs(self) -> Sequence[_NamedConfig]: ...


R = TypeVar("R", bound=Resource)


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
    ctx: RequestContext, name: str, change: PropsChange, *, validate_only: bool
) -> None:
    """Replace the dynamic configs of this broker (`name` = its id) or of the cluster-wide
    defaults (`name` empty) with what `change` makes of them, checked (on PostgreSQL, in
    the transaction that changes the cluster's configs as stored)."""
    per_broker = bool(name)

    def checked(current: Mapping[str, str]) -> Mapping[str, str]:
        props = change(current)
        validate_broker_changes(props, per_broker)
        return props

    dynamic = ctx.dynamic_configs
    if validate_only:
        checked(dynamic.layer(per_broker))
        return
    try:
        await dynamic.change_broker(per_broker, checked)
    except (OSError, KafkaStorageError) as exc:
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
        ctx.topics.describe_topic(name)
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
        await ctx.topics.alter_topic_configs(
            name, changes, replace=replace, validate_only=validate_only
        )
    except StorageError as exc:
        raise ResourceError(exc.error_code, str(exc)) from None


async def alter_resources(
    ctx: RequestContext,
    resources: Sequence[R],
    *,
    null_names: Callable[[R], Iterable[str]],
    alter: Callable[[R], Awaitable[None]],
) -> list[tuple[int, str | None]]:
    """Each resource's (error code, message) once `alter` ran on it, in request order: a
    resource named twice, one the principal may not alter, or with duplicate or null
    (`null_names`) keys is refused before `alter`, which raises ResourceError to refuse."""
    duplicates = duplicate_resources(resources)
    outcomes: list[tuple[int, str | None]] = []
    for resource in resources:
        try:
            if (resource.resource_type, resource.resource_name) in duplicates:
                raise ResourceError(ErrorCode.INVALID_REQUEST, "Each resource must appear at most once.")
            denied = config_denied(ctx, AclOperation.ALTER_CONFIGS, resource.resource_type, resource.resource_name)
            if denied is not None:
                raise ResourceError(denied, None)
            check_keys((c.name for c in resource.configs), null_names(resource))
            await alter(resource)
        except ResourceError as exc:
            outcomes.append((exc.code, exc.message))
            continue
        outcomes.append((ErrorCode.NONE, None))
    return outcomes
