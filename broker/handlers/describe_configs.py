"""DescribeConfigs: topic configs from the storage catalog, broker configs from the broker's
own settings (none of which can be changed at runtime, so all are read-only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from broker.config import SETTINGS, Config
from broker.context import RequestContext
from broker.topic_names import topic_name_error
from protocol.errors import ErrorCode
from protocol.messages.describe_configs_request import DescribeConfigsRequest, DescribeConfigsResource
from protocol.messages.describe_configs_response import (
    DescribeConfigsResourceResult,
    DescribeConfigsResponse,
    DescribeConfigsResult,
    DescribeConfigsSynonym,
)
from storage.errors import UnknownTopicOrPartitionError
from storage.topic_config import ConfigEntry, ConfigSource, ConfigType

API_KEY = 32

# ConfigResource.Type ids.
TOPIC = 2
BROKER = 4
BROKER_LOGGER = 8
RESOURCE_TYPE_NAMES = {
    0: "UNKNOWN",
    2: "TOPIC",
    4: "BROKER",
    8: "BROKER_LOGGER",
    16: "CLIENT_METRICS",
    32: "GROUP",
}

# Broker settings Kafka types as LONG; the other integer settings are INT.
_LONG_SETTINGS = frozenset(
    {"log.retention.ms", "log.retention.bytes", "log.roll.ms", "log.retention.check.interval.ms"}
)


class RequestError(Exception):
    """A per-resource error: the resource gets this code and message and no configs."""

    def __init__(self, code: int, message: str | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Synonym:
    name: str
    value: str | None
    source: int


@dataclass(frozen=True, slots=True)
class ConfigRow:
    """One described config, the shape shared by DescribeConfigs and CreateTopics v5+."""

    name: str
    value: str | None
    read_only: bool
    source: int
    sensitive: bool
    config_type: int
    documentation: str
    synonyms: tuple[Synonym, ...]


def setting_text(value: Any) -> str:
    """A broker setting as Kafka prints it (booleans lower-case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _broker_synonym_of() -> dict[str, str]:
    # Imported here: broker.server imports the handlers package at module level.
    from broker.server import TOPIC_DEFAULT_SYNONYMS

    return {topic_name: broker_name for broker_name, topic_name in TOPIC_DEFAULT_SYNONYMS.items()}


def _broker_synonyms(config: Config, broker_name: str) -> list[Synonym]:
    """The broker-level sources a value can come from, most specific first."""
    out = []
    if not config.is_default(broker_name):
        out.append(
            Synonym(broker_name, setting_text(config.get(broker_name)), ConfigSource.STATIC_BROKER_CONFIG)
        )
    out.append(Synonym(broker_name, setting_text(SETTINGS[broker_name].default), ConfigSource.DEFAULT_CONFIG))
    return out


def topic_config_rows(entries: list[ConfigEntry], config: Config) -> list[ConfigRow]:
    """A topic's effective configs. The source is the first of its synonyms, as in Kafka:
    the topic override, else a broker setting given explicitly, else the default."""
    broker_synonym_of = _broker_synonym_of()
    rows = []
    for entry in entries:
        synonyms: list[Synonym] = []
        if entry.source == ConfigSource.DYNAMIC_TOPIC_CONFIG:
            synonyms.append(Synonym(entry.name, entry.value, ConfigSource.DYNAMIC_TOPIC_CONFIG))
        broker_name = broker_synonym_of.get(entry.name)
        if broker_name is not None:
            synonyms += _broker_synonyms(config, broker_name)
        rows.append(
            ConfigRow(
                name=entry.name,
                value=None if entry.sensitive else entry.value,
                read_only=entry.read_only,
                source=synonyms[0].source if synonyms else ConfigSource.DEFAULT_CONFIG,
                sensitive=entry.sensitive,
                config_type=int(entry.config_type),
                documentation=entry.documentation,
                synonyms=tuple(synonyms),
            )
        )
    return rows


def _setting_type(name: str) -> ConfigType:
    parse = SETTINGS[name].parse
    if parse is int:
        return ConfigType.LONG if name in _LONG_SETTINGS else ConfigType.INT
    if parse is str:
        return ConfigType.STRING
    return ConfigType.BOOLEAN


def broker_config_rows(config: Config) -> list[ConfigRow]:
    rows = []
    for name, value in config.items():
        synonyms = _broker_synonyms(config, name)
        rows.append(
            ConfigRow(
                name=name,
                value=setting_text(value),
                read_only=True,
                source=synonyms[0].source,
                sensitive=False,
                config_type=int(_setting_type(name)),
                documentation=SETTINGS[name].doc,
                synonyms=tuple(synonyms),
            )
        )
    return rows


def check_broker_resource(name: str, node_id: int) -> None:
    """An empty name means the cluster-wide defaults; otherwise the name must be this node's id."""
    if not name:
        return
    try:
        broker_id = int(name)
    except ValueError:
        raise RequestError(
            ErrorCode.INVALID_REQUEST, f"Broker id must be an integer, but it is: {name}"
        ) from None
    if broker_id != node_id:
        raise RequestError(
            ErrorCode.INVALID_REQUEST,
            f"Unexpected broker id, expected {node_id} or empty string, but received {name}",
        )


def _rows_for(ctx: RequestContext, resource: DescribeConfigsResource) -> list[ConfigRow]:
    services = ctx.services
    keys = resource.configuration_keys or None  # null and empty both mean "all"
    if resource.resource_type == TOPIC:
        problem = topic_name_error(resource.resource_name)
        if problem is not None:
            raise RequestError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem)
        try:
            rows = topic_config_rows(
                services.storage.describe_configs(resource.resource_name), services.config
            )
        except UnknownTopicOrPartitionError:
            # Kafka sets only the code here, leaving the message at its default.
            raise RequestError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "") from None
    elif resource.resource_type == BROKER:
        check_broker_resource(resource.resource_name, services.node_id)
        # The default resource lists dynamic cluster-wide defaults, which this broker has none of.
        rows = broker_config_rows(services.config) if resource.resource_name else []
    elif resource.resource_type == BROKER_LOGGER:
        check_broker_resource(resource.resource_name, services.node_id)
        rows = []
    else:
        type_name = RESOURCE_TYPE_NAMES.get(resource.resource_type, "UNKNOWN")
        raise RequestError(ErrorCode.INVALID_REQUEST, f"Unsupported resource type: {type_name}")
    if keys is not None:
        wanted = set(keys)
        rows = [row for row in rows if row.name in wanted]
    return rows


def _result_config(
    row: ConfigRow, include_synonyms: bool, include_documentation: bool
) -> DescribeConfigsResourceResult:
    return DescribeConfigsResourceResult(
        name=row.name,
        value=row.value,
        read_only=row.read_only,
        is_default=row.source == ConfigSource.DEFAULT_CONFIG,
        config_source=row.source,
        is_sensitive=row.sensitive,
        synonyms=[DescribeConfigsSynonym(s.name, s.value, s.source) for s in row.synonyms]
        if include_synonyms
        else [],
        config_type=row.config_type,
        documentation=row.documentation if include_documentation else None,
    )


async def handle(ctx: RequestContext, request: DescribeConfigsRequest) -> DescribeConfigsResponse:
    include_synonyms = request.include_synonyms and ctx.api_version >= 1
    include_documentation = request.include_documentation and ctx.api_version >= 3
    results = []
    for resource in request.resources:
        result = DescribeConfigsResult(
            resource_type=resource.resource_type, resource_name=resource.resource_name
        )
        try:
            rows = _rows_for(ctx, resource)
        except RequestError as exc:
            result.error_code = exc.code
            result.error_message = exc.message
        else:
            result.configs = [_result_config(r, include_synonyms, include_documentation) for r in rows]
        results.append(result)
    return DescribeConfigsResponse(results=results)
