"""DescribeConfigs: topic configs from the storage catalog, broker configs from the static
settings and the dynamic ones (broker/dynamic_config.py), group configs (KIP-848).

Each value's source and synonyms follow Kafka's `ConfigHelper`: the synonyms list where a
value can come from, most specific first (topic or group override, dynamic per-broker,
dynamic cluster default, static setting, default), and the source is the first of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from broker import logger_levels
from broker.config import KAFKA_SETTINGS, SETTINGS, Config
from broker.context import RequestContext
from broker.dynamic_config import (
    DYNAMIC_CONFIGS,
    NULL_DEFAULTS,
    SYNONYM_DEFAULTS,
    DynamicConfigs,
    broker_config_synonyms,
    is_dynamic,
    is_sensitive,
)
from broker.group_config import GROUP_CONFIG_DEFS
from broker.kafka_broker_configs import KAFKA_STATIC_BROKER_CONFIGS, KAFKA_TYPES, static_security_settings
from broker.security.acl.model import AclOperation
from broker.security.config_resources import config_denied
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
from storage.topic_config import TOPIC_CONFIG_SYNONYMS, ConfigEntry, ConfigSource, ConfigType

API_KEY = 32

# ConfigResource.Type ids.
TOPIC = 2
BROKER = 4
BROKER_LOGGER = 8
CLIENT_METRICS = 16
GROUP = 32
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
    {"log.retention.ms", "log.retention.bytes", "log.roll.ms", "log.retention.check.interval.ms",
     "log.cleaner.backoff.ms"}
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
    documentation: str | None
    synonyms: tuple[Synonym, ...]


def setting_text(value: Any) -> str:
    """A broker setting as Kafka prints it (booleans lower-case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True, slots=True)
class BrokerLayers:
    """The places a broker setting's value can come from, in Kafka's order of precedence."""

    dynamic_broker: Mapping[str, str]
    dynamic_default: Mapping[str, str]
    static: Mapping[str, str]
    defaults: Mapping[str, str]

    def synonyms(self, name: str) -> list[Synonym]:
        """Kafka's `ConfigHelper.configSynonyms`: every layer's value of every name that can
        set `name`, then those that come before `name` itself dropped."""
        names = broker_config_synonyms(name)
        sensitive = is_sensitive(name)
        out = []
        for layer, source in (
            (self.dynamic_broker, ConfigSource.DYNAMIC_BROKER_CONFIG),
            (self.dynamic_default, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
            (self.static, ConfigSource.STATIC_BROKER_CONFIG),
            (self.defaults, ConfigSource.DEFAULT_CONFIG),
        ):
            out += [Synonym(n, None if sensitive else layer[n], source) for n in names if n in layer]
        while out and out[0].name != name:
            out.pop(0)
        return out


def _kafka_defaults() -> dict[str, str]:
    defaults = {name: d for name, (_, d) in KAFKA_STATIC_BROKER_CONFIGS.items() if d is not None}
    defaults.update({name: setting_text(s.default) for name, s in SETTINGS.items() if name in KAFKA_SETTINGS})
    defaults.update({name: d.default for name, d in DYNAMIC_CONFIGS.items() if d.default is not None})
    for name in NULL_DEFAULTS:
        defaults.pop(name, None)
    defaults.pop("node.id", None)  # required by Kafka, so it has no default (see layers_of)
    defaults.update(SYNONYM_DEFAULTS)
    defaults.update({d.broker_synonym: d.default for d in GROUP_CONFIG_DEFS.values() if d.broker_synonym})
    return defaults


KAFKA_DEFAULTS = _kafka_defaults()


def layers_of(config: Config, dynamic: DynamicConfigs) -> BrokerLayers:
    # This broker's own settings (log.format, metrics.port, ...) are not Kafka configs.
    static = {
        name: setting_text(value)
        for name, value in config.items()
        if name in KAFKA_SETTINGS and not config.is_default(name)
    } | static_security_settings(config)
    # Kafka requires node.id in its properties, and KafkaConfig.populateSynonyms copies it to
    # broker.id: both are static settings of every node.
    static["node.id"] = static["broker.id"] = str(config.node_id)
    return BrokerLayers(
        dynamic_broker=dynamic.broker,
        dynamic_default=dynamic.default,
        static=static,
        defaults=KAFKA_DEFAULTS,
    )


def broker_layers(ctx: RequestContext) -> BrokerLayers:
    return layers_of(ctx.config, ctx.dynamic_configs)


def topic_config_rows(entries: list[ConfigEntry], layers: BrokerLayers) -> list[ConfigRow]:
    """A topic's effective configs (Kafka's `createTopicConfigEntry`)."""
    rows = []
    for entry in entries:
        synonyms: list[Synonym] = []
        if entry.source == ConfigSource.TOPIC_CONFIG:
            synonyms.append(Synonym(entry.name, None if entry.sensitive else entry.value, ConfigSource.TOPIC_CONFIG))
        broker_name = TOPIC_CONFIG_SYNONYMS.get(entry.name)
        if broker_name is not None:
            synonyms += layers.synonyms(broker_name)
        rows.append(
            ConfigRow(
                name=entry.name,
                value=None if entry.sensitive else entry.value,
                read_only=False,
                source=synonyms[0].source if synonyms else ConfigSource.DEFAULT_CONFIG,
                sensitive=entry.sensitive,
                config_type=int(entry.config_type),
                documentation=entry.documentation,
                synonyms=tuple(synonyms),
            )
        )
    return rows


def _broker_type(name: str) -> ConfigType:
    setting = SETTINGS.get(name)
    if name in KAFKA_TYPES:
        return KAFKA_TYPES[name]
    if setting is not None:
        if setting.parse is int:
            return ConfigType.LONG if name in _LONG_SETTINGS else ConfigType.INT
        if setting.parse is str:
            return ConfigType.STRING
        return ConfigType.BOOLEAN
    d = DYNAMIC_CONFIGS.get(name)
    if d is not None:
        return d.type
    return KAFKA_STATIC_BROKER_CONFIGS.get(name, (ConfigType.UNKNOWN, None))[0]


def broker_config_rows(config: Config, layers: BrokerLayers, per_broker: bool) -> list[ConfigRow]:
    """This broker's configs (Kafka's `createBrokerConfigEntry`), or with `per_broker` false
    the cluster-wide dynamic defaults only, each with only that source among its synonyms."""
    if per_broker:
        names = set(KAFKA_SETTINGS) | set(DYNAMIC_CONFIGS) | set(KAFKA_STATIC_BROKER_CONFIGS)
        names |= set(layers.dynamic_broker) | set(layers.dynamic_default)
    else:
        names = set(layers.dynamic_default)
    rows = []
    for name in sorted(names):
        synonyms = layers.synonyms(name)
        if not per_broker:
            synonyms = [s for s in synonyms if s.source == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG]
        sensitive = is_sensitive(name)
        # Kafka describes log.retention.ms (and the other `.ms` names whose hours or
        # minutes synonym supplies the default) as null while it is unset.
        if synonyms:
            value = synonyms[0].value
        elif name in SETTINGS and name not in NULL_DEFAULTS:
            value = setting_text(config.get(name))  # a setting Kafka leaves null by default
        else:
            value = None
        setting = SETTINGS.get(name)
        rows.append(
            ConfigRow(
                name=name,
                value=None if sensitive else value,
                read_only=not is_dynamic(name),
                source=synonyms[0].source if synonyms else ConfigSource.DEFAULT_CONFIG,
                sensitive=sensitive,
                config_type=int(_broker_type(name)),
                documentation=setting.doc if setting is not None else None,
                synonyms=tuple(synonyms),
            )
        )
    return rows


def group_config_rows(group: str, layers: BrokerLayers, dynamic: DynamicConfigs) -> list[ConfigRow]:
    """A group's configs (Kafka's `createGroupConfigEntry`): the group's own value, else the
    broker setting that supplies the default, else the group config's default."""
    overrides = dynamic.groups.get(group, {})
    rows = []
    for name, d in sorted(GROUP_CONFIG_DEFS.items()):
        synonyms: list[Synonym] = []
        if name in overrides:
            synonyms.append(Synonym(name, overrides[name], ConfigSource.GROUP_CONFIG))
        if d.broker_synonym is not None:
            synonyms += layers.synonyms(d.broker_synonym)
        else:
            synonyms.append(Synonym(name, d.default, ConfigSource.DEFAULT_CONFIG))
        rows.append(
            ConfigRow(
                name=name,
                value=overrides.get(name, synonyms[0].value if synonyms else d.default),
                read_only=False,
                source=synonyms[0].source if synonyms else ConfigSource.DEFAULT_CONFIG,
                sensitive=False,
                config_type=int(d.type),
                documentation=None,
                synonyms=tuple(synonyms),
            )
        )
    return rows


def broker_id_of(name: str) -> int:
    try:
        return int(name)
    except ValueError:
        raise RequestError(
            ErrorCode.INVALID_REQUEST, f"Broker id must be an integer, but it is: {name}"
        ) from None


def check_broker_resource(name: str, node_id: int) -> None:
    """An empty name means the cluster-wide defaults; otherwise the name must be this node's id."""
    if name and broker_id_of(name) != node_id:
        raise RequestError(
            ErrorCode.INVALID_REQUEST,
            f"Unexpected broker id, expected {node_id} or empty string, but received {name}",
        )


def check_broker_logger_resource(name: str, node_id: int) -> None:
    if not name:
        raise RequestError(ErrorCode.INVALID_REQUEST, "Broker id must not be empty")
    if broker_id_of(name) != node_id:
        raise RequestError(ErrorCode.INVALID_REQUEST, f"Unexpected broker id, expected {node_id} but received {name}")


def _rows_for(ctx: RequestContext, resource: DescribeConfigsResource) -> list[ConfigRow]:
    keys = resource.configuration_keys or None  # null and empty both mean "all"
    if resource.resource_type == TOPIC:
        problem = topic_name_error(resource.resource_name)
        if problem is not None:
            raise RequestError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem)
        try:
            entries = ctx.topics.describe_configs(resource.resource_name)
        except UnknownTopicOrPartitionError:
            # Kafka sets only the code here, leaving the message at its default.
            raise RequestError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "") from None
        rows = topic_config_rows(entries, broker_layers(ctx))
    elif resource.resource_type == BROKER:
        check_broker_resource(resource.resource_name, ctx.cluster.node_id)
        rows = broker_config_rows(ctx.config, broker_layers(ctx), per_broker=bool(resource.resource_name))
    elif resource.resource_type == BROKER_LOGGER:
        check_broker_logger_resource(resource.resource_name, ctx.cluster.node_id)
        # Kafka's ConfigHelper: each logger's level, dynamic, with no type nor documentation.
        rows = [
            ConfigRow(name, level, False, ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG, False, ConfigType.UNKNOWN, "", ())
            for name, level in logger_levels.loggers().items()
        ]
    elif resource.resource_type == CLIENT_METRICS:
        # KIP-714 subscriptions: this broker keeps none, so a named one has no configs (as
        # Kafka's ConfigHelper answers for a name it has none for).
        if not resource.resource_name:
            raise RequestError(ErrorCode.INVALID_REQUEST, "Client metrics subscription name must not be empty")
        rows = []
    elif resource.resource_type == GROUP:
        if not resource.resource_name:
            raise RequestError(ErrorCode.INVALID_REQUEST, "Group name must not be empty")
        rows = group_config_rows(resource.resource_name, broker_layers(ctx), ctx.dynamic_configs)
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


# Kafka's Errors messages for the authorization failures config_denied answers.
_DENIED_MESSAGES = {
    ErrorCode.TOPIC_AUTHORIZATION_FAILED: "Topic authorization failed.",
    ErrorCode.GROUP_AUTHORIZATION_FAILED: "Group authorization failed.",
    ErrorCode.CLUSTER_AUTHORIZATION_FAILED: "Cluster authorization failed.",
}


async def handle(ctx: RequestContext, request: DescribeConfigsRequest) -> DescribeConfigsResponse:
    include_synonyms = request.include_synonyms and ctx.api_version >= 1
    include_documentation = request.include_documentation and ctx.api_version >= 3
    results = []
    for resource in request.resources:
        # Kafka's ConfigHelper leaves a found resource's error message at the schema's default,
        # the empty string, and gives a denied one its error's text.
        result = DescribeConfigsResult(resource_type=resource.resource_type, resource_name=resource.resource_name)
        denied = config_denied(ctx, AclOperation.DESCRIBE_CONFIGS, resource.resource_type, resource.resource_name)
        if denied is not None:
            result.error_code = denied
            result.error_message = _DENIED_MESSAGES.get(denied)
            results.append(result)
            continue
        try:
            rows = _rows_for(ctx, resource)
        except RequestError as exc:
            result.error_code = exc.code
            result.error_message = exc.message
        else:
            result.configs = [_result_config(r, include_synonyms, include_documentation) for r in rows]
        results.append(result)
    return DescribeConfigsResponse(results=results)
