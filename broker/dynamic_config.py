"""Dynamic broker configs: the settings AlterConfigs and IncrementalAlterConfigs may change
on a running broker, per broker (resource name = node id) or as the cluster-wide default
(empty resource name), and the store that keeps them across restarts.

Which settings are dynamic, and which of them only per broker, follows Kafka's
`DynamicBrokerConfig` (`ALL_DYNAMIC_CONFIGS`, `PER_BROKER_CONFIGS`). A value wins over
the static settings: per broker > cluster default > properties file > default. Values the
broker acts on (the topic-config defaults such as `log.retention.ms`, `message.max.bytes`)
take effect at once; the others (SASL, SSL, thread pools) are kept and reported, which is
all a broker without those subsystems can do with them.

Group configs (KIP-848, resource type GROUP) are dynamic too and live in the same file. On
PostgreSQL all of them are the cluster's (`SharedDynamicConfigs`).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from broker.config import ConfigError as SettingsError
from broker.kafka_broker_configs import KAFKA_STATIC_BROKER_CONFIGS
from broker.logging import get_logger
from protocol.limits import INT32_MAX, INT64_MAX
from storage.errors import ConfigError
from storage.files import write_atomically
from storage.topic_config import (
    CONFIG_DEFS,
    TOPIC_CONFIG_SYNONYMS,
    ConfigDef,
    ConfigType,
    Validator,
    at_least,
    parse_value,
    validate_configs,
)

if TYPE_CHECKING:
    from storage.postgres.cluster_metadata import MetadataDocuments

log = get_logger("odradek.dynamic_config")

DYNAMIC_CONFIG_FILE = "dynamic-configs.json"
DOCUMENT = "dynamic-configs"

_T = ConfigType


@dataclass(frozen=True, slots=True)
class DynamicDef:
    """A dynamically updatable broker config: its type and Kafka's default (None: no default)."""

    name: str
    type: ConfigType
    default: str | None
    validator: Validator | None = None

    def parse(self, raw: str) -> None:
        """Raises ConfigError when `raw` is not a valid value."""
        parse_value(ConfigDef(self.name, self.type, self.default or "", self.validator), raw)


def _d(name: str, type_: ConfigType, default: str | None, validator: Validator | None = None) -> DynamicDef:
    return DynamicDef(name, type_, default, validator)


# SSL keystore and truststore settings: per listener only (`listener.name.<l>.<config>`).
SECURITY_CONFIGS = frozenset({
    "ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
    "ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password",
    "ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.truststore.certificates",
})

# Kafka's `DynamicListenerConfig.RECONFIGURABLE_CONFIGS` less `listeners`: rebinding sockets
# at runtime is not supported here, so `listeners` stays a static setting.
_LISTENER_DEFS = [
    _d("listener.security.protocol.map", _T.STRING,
       "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT"),
    _d("principal.builder.class", _T.CLASS,
       "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder"),
    _d("ssl.protocol", _T.STRING, "TLSv1.3"),
    _d("ssl.provider", _T.STRING, None),
    _d("ssl.cipher.suites", _T.LIST, ""),
    _d("ssl.enabled.protocols", _T.LIST, "TLSv1.2,TLSv1.3"),
    _d("ssl.keystore.type", _T.STRING, "JKS"),
    _d("ssl.keystore.location", _T.STRING, None),
    _d("ssl.keystore.password", _T.PASSWORD, None),
    _d("ssl.key.password", _T.PASSWORD, None),
    _d("ssl.truststore.type", _T.STRING, "JKS"),
    _d("ssl.truststore.location", _T.STRING, None),
    _d("ssl.truststore.password", _T.PASSWORD, None),
    _d("ssl.keystore.certificate.chain", _T.PASSWORD, None),
    _d("ssl.keystore.key", _T.PASSWORD, None),
    _d("ssl.truststore.certificates", _T.PASSWORD, None),
    _d("ssl.keymanager.algorithm", _T.STRING, "SunX509"),
    _d("ssl.trustmanager.algorithm", _T.STRING, "PKIX"),
    _d("ssl.endpoint.identification.algorithm", _T.STRING, "https"),
    _d("ssl.secure.random.implementation", _T.STRING, None),
    _d("ssl.client.auth", _T.STRING, "none"),
    _d("ssl.engine.factory.class", _T.CLASS, None),
    _d("sasl.mechanism.inter.broker.protocol", _T.STRING, "GSSAPI"),
    _d("sasl.jaas.config", _T.PASSWORD, None),
    _d("sasl.enabled.mechanisms", _T.LIST, "GSSAPI"),
    _d("sasl.kerberos.service.name", _T.STRING, None),
    _d("sasl.kerberos.kinit.cmd", _T.STRING, "/usr/bin/kinit"),
    _d("sasl.kerberos.ticket.renew.window.factor", _T.DOUBLE, "0.8"),
    _d("sasl.kerberos.ticket.renew.jitter", _T.DOUBLE, "0.05"),
    _d("sasl.kerberos.min.time.before.relogin", _T.LONG, "60000"),
    _d("sasl.kerberos.principal.to.local.rules", _T.LIST, "DEFAULT"),
    _d("sasl.login.refresh.window.factor", _T.DOUBLE, "0.8"),
    _d("sasl.login.refresh.window.jitter", _T.DOUBLE, "0.05"),
    _d("sasl.login.refresh.min.period.seconds", _T.SHORT, "60"),
    _d("sasl.login.refresh.buffer.seconds", _T.SHORT, "300"),
    _d("max.connections", _T.INT, str(INT32_MAX), at_least(0)),
    _d("max.connection.creation.rate", _T.INT, str(INT32_MAX), at_least(0)),
    _d("num.network.threads", _T.INT, "3", at_least(1)),
]
# Listener settings that may still be set cluster-wide (Kafka's CLUSTER_LEVEL_LISTENER_CONFIGS).
_CLUSTER_LEVEL_LISTENER_CONFIGS = frozenset({"max.connections", "max.connection.creation.rate", "num.network.threads"})


def _log_defs() -> list[DynamicDef]:
    """`DynamicLogConfig`: the broker synonyms of topic configs, typed and checked as the topic config."""
    out = []
    for topic_name, broker_name in TOPIC_CONFIG_SYNONYMS.items():
        d = CONFIG_DEFS[topic_name]
        out.append(_d(broker_name, d.type, d.default, d.validator))
    return out


_OTHER_DEFS = [
    # LogCleaner.RECONFIGURABLE_CONFIGS
    _d("log.cleaner.threads", _T.INT, "1", at_least(0)),
    _d("log.cleaner.dedupe.buffer.size", _T.LONG, "134217728"),
    _d("log.cleaner.io.buffer.load.factor", _T.DOUBLE, "0.9"),
    _d("log.cleaner.io.buffer.size", _T.INT, "524288", at_least(0)),
    _d("log.cleaner.io.max.bytes.per.second", _T.DOUBLE, "1.7976931348623157E308"),
    _d("log.cleaner.backoff.ms", _T.LONG, "15000", at_least(0)),
    # DynamicThreadPool
    _d("num.io.threads", _T.INT, "8", at_least(1)),
    _d("num.replica.fetchers", _T.INT, "1"),
    _d("num.recovery.threads.per.data.dir", _T.INT, "2", at_least(1)),
    _d("background.threads", _T.INT, "10", at_least(1)),
    # SocketServer
    _d("max.connections.per.ip", _T.INT, str(INT32_MAX), at_least(0)),
    _d("max.connections.per.ip.overrides", _T.STRING, ""),
    # producer state, metrics, config providers, replication, quotas
    _d("producer.id.expiration.ms", _T.INT, "86400000", at_least(1)),
    _d("transaction.partition.verification.enable", _T.BOOLEAN, "true"),
    _d("metric.reporters", _T.LIST, ""),
    _d("config.providers", _T.LIST, ""),
    _d("follower.fetch.last.tiered.offset.enable", _T.BOOLEAN, "false"),
    _d("leader.replication.throttled.rate", _T.LONG, str(INT64_MAX), at_least(0)),
    _d("follower.replication.throttled.rate", _T.LONG, str(INT64_MAX), at_least(0)),
    _d("replica.alter.log.dirs.io.max.bytes.per.second", _T.LONG, str(INT64_MAX), at_least(0)),
    # DynamicRemoteLogConfig
    _d("remote.log.index.file.cache.total.size.bytes", _T.LONG, "1073741824", at_least(1)),
    _d("remote.fetch.max.wait.ms", _T.INT, "500", at_least(1)),
    _d("remote.log.manager.copy.max.bytes.per.second", _T.LONG, str(INT64_MAX), at_least(1)),
    _d("remote.log.manager.fetch.max.bytes.per.second", _T.LONG, str(INT64_MAX), at_least(1)),
    _d("remote.list.offsets.request.timeout.ms", _T.LONG, "30000", at_least(1)),
    _d("remote.log.manager.copier.thread.pool.size", _T.INT, "10", at_least(1)),
    _d("remote.log.manager.expiration.thread.pool.size", _T.INT, "10", at_least(1)),
    _d("remote.log.manager.follower.thread.pool.size", _T.INT, "2", at_least(1)),
    _d("remote.log.reader.threads", _T.INT, "10", at_least(1)),
]

DYNAMIC_CONFIGS: dict[str, DynamicDef] = {d.name: d for d in [*_LISTENER_DEFS, *_log_defs(), *_OTHER_DEFS]}
PER_BROKER_CONFIGS = frozenset(
    d.name for d in _LISTENER_DEFS if d.name not in _CLUSTER_LEVEL_LISTENER_CONFIGS
) | SECURITY_CONFIGS

# Kafka's broker configs that exist but are not dynamic, beyond this broker's own static
# settings (broker/config.py): altering them is refused rather than kept as custom configs.
KNOWN_STATIC_CONFIGS = frozenset({
    "broker.id", "process.roles", "controller.listener.names", "controller.quorum.voters",
    "controller.quorum.bootstrap.servers", "log.dir", "inter.broker.listener.name", "listeners",
    "advertised.listeners", "node.id", "log.dirs",
}) | frozenset(KAFKA_STATIC_BROKER_CONFIGS)

_LISTENER_PREFIXED = re.compile(r"^listener\.name\.[^.]*\.(.*)$")

# Where Kafka has more than one name for a setting (`DynamicBrokerConfig.brokerConfigSynonyms`).
_SYNONYM_GROUPS = [
    ["log.roll.ms", "log.roll.hours"],
    ["log.roll.jitter.ms", "log.roll.jitter.hours"],
    ["log.retention.ms", "log.retention.minutes", "log.retention.hours"],
]
# Kafka's defaults of those other names; the `.ms` names themselves default to null.
SYNONYM_DEFAULTS = {"log.roll.hours": "168", "log.roll.jitter.hours": "0", "log.retention.hours": "168",
                    "log.flush.scheduler.interval.ms": str(INT64_MAX)}
NULL_DEFAULTS = frozenset({"log.roll.ms", "log.roll.jitter.ms", "log.retention.ms", "log.flush.interval.ms"})


def broker_config_synonyms(name: str) -> list[str]:
    """The broker names that can set `name`, highest priority first."""
    if name == "log.flush.interval.ms":
        return ["log.flush.interval.ms", "log.flush.scheduler.interval.ms"]
    for group in _SYNONYM_GROUPS:
        if name in group:
            return group
    match = _LISTENER_PREFIXED.match(name)
    if match:
        return [name, match.group(1)]
    return [name]


def is_dynamic(name: str) -> bool:
    return name in DYNAMIC_CONFIGS


def is_sensitive(name: str) -> bool:
    base = _LISTENER_PREFIXED.match(name)
    d = DYNAMIC_CONFIGS.get(base.group(1) if base else name)
    static = KAFKA_STATIC_BROKER_CONFIGS.get(name)
    return (d is not None and d.type == ConfigType.PASSWORD) or (static is not None and static[0] == ConfigType.PASSWORD)


class DynamicConfigError(Exception):
    """Kafka's answer to a refused change: INVALID_REQUEST with this message."""


def _names(names: set[str]) -> str:
    return "Set(" + ", ".join(sorted(names)) + ")"


def validate_broker_configs(props: Mapping[str, str], static_names: frozenset[str], per_broker: bool) -> None:
    """Kafka's `DynamicBrokerConfig.validateConfigs` over the resulting dynamic configs of a
    resource; names Kafka does not know are kept as custom configs, as Kafka does."""
    non_dynamic = {n for n in props if not is_dynamic(n) and (n in static_names or n in KNOWN_STATIC_CONFIGS)}
    if non_dynamic:
        raise DynamicConfigError(f"Cannot update these configs dynamically: {_names(non_dynamic)}")
    unprefixed = {n for n in props if n in SECURITY_CONFIGS}
    if unprefixed:
        raise DynamicConfigError(
            "These security configs can be dynamically updated only per-listener using the listener prefix: "
            + _names(unprefixed)
        )
    for name, value in props.items():
        match = _LISTENER_PREFIXED.match(name)
        d = DYNAMIC_CONFIGS.get(match.group(1) if match else name)
        if d is not None:
            try:
                d.parse(value)
            except ConfigError as exc:
                raise DynamicConfigError(str(exc)) from None
    if not per_broker:
        only_per_broker = {n for n in props if n in PER_BROKER_CONFIGS or _per_broker_listener_config(n)}
        if only_per_broker:
            raise DynamicConfigError(
                "Cannot update these configs at default cluster level, broker id must be specified: "
                + _names(only_per_broker)
            )


def _per_broker_listener_config(name: str) -> bool:
    match = _LISTENER_PREFIXED.match(name)
    return match is not None and match.group(1) not in _CLUSTER_LEVEL_LISTENER_CONFIGS


# Given a resource's dynamic configs as stored, returns the new ones (raising to refuse).
PropsChange = Callable[[Mapping[str, str]], Mapping[str, str]]


class DynamicConfigs:
    """The dynamic configs of this broker, the cluster-wide defaults and the groups', kept in
    one JSON file in the data directory, replaced atomically on every change (the file
    engine's backend; `SharedDynamicConfigs` is PostgreSQL's)."""

    def __init__(self, path: Path | None, broker: dict[str, str], default: dict[str, str],
                 groups: dict[str, dict[str, str]]) -> None:
        self.path = path
        self.broker = broker
        self.default = default
        self.groups = groups
        self._lock = asyncio.Lock()
        # Called after every change, to apply what the broker uses.
        self.listeners: list[Callable[[], None]] = []

    @classmethod
    def load(cls, data_dir: Path) -> DynamicConfigs:
        path = data_dir / DYNAMIC_CONFIG_FILE
        doc = read_file(data_dir)
        return cls(
            path,
            {str(k): str(v) for k, v in doc.get("broker", {}).items()},
            {str(k): str(v) for k, v in doc.get("default", {}).items()},
            {str(g): {str(k): str(v) for k, v in c.items()} for g, c in doc.get("groups", {}).items()},
        )

    def layer(self, per_broker: bool) -> dict[str, str]:
        return self.broker if per_broker else self.default

    def value(self, name: str) -> str | None:
        """The dynamic value in force for `name`, if any."""
        if name in self.broker:
            return self.broker[name]
        return self.default.get(name)

    async def change_broker(self, per_broker: bool, change: PropsChange) -> None:
        """This broker's dynamic configs (or the cluster-wide defaults) become what `change`
        makes of them as stored."""
        await self.replace_broker(per_broker, change(self.layer(per_broker)))

    async def change_group(self, group: str, change: PropsChange) -> None:
        await self.replace_group(group, change(self.groups.get(group, {})))

    async def replace_broker(self, per_broker: bool, props: Mapping[str, str]) -> None:
        if per_broker:
            self.broker = dict(props)
        else:
            self.default = dict(props)
        await self._changed()

    async def replace_group(self, group: str, props: Mapping[str, str]) -> None:
        if props:
            self.groups[group] = dict(props)
        else:
            self.groups.pop(group, None)
        await self._changed()

    async def _changed(self) -> None:
        # Memory changes at once, before any suspension, so concurrent requests build on
        # each other; each then writes the latest state, in order. The write runs in a task
        # of its own so that a cancelled request still leaves file and memory agreeing.
        for listener in self.listeners:
            listener()
        await asyncio.shield(asyncio.ensure_future(self._save()))

    async def _save(self) -> None:
        assert self.path is not None
        async with self._lock:
            doc = {"version": 1, "broker": self.broker, "default": self.default, "groups": self.groups}
            data = json.dumps(doc, indent=1, sort_keys=True).encode()
            await asyncio.to_thread(write_atomically, os.fspath(self.path), data)


def read_file(data_dir: Path) -> dict[str, Any]:
    """The data directory's dynamic configs ({} without a file)."""
    path = data_dir / DYNAMIC_CONFIG_FILE
    try:
        doc = json.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        # Written atomically, so only outside damage gets here: refuse to start rather
        # than silently drop configs an operator set.
        raise SettingsError(f"cannot read dynamic configs {path}: {exc}") from exc
    return doc if isinstance(doc, dict) else {}


def _strings(props: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in (props or {}).items()}


class SharedDynamicConfigs(DynamicConfigs):
    """The cluster's dynamic configs on PostgreSQL (storage/postgres/cluster_metadata.py),
    one document {"default": {...}, "brokers": {"<node id>": {...}}, "groups": {...}}: the
    cluster-wide defaults and the group configs apply on every broker, a broker's own on it
    alone (Kafka's metadata log keeps them all; a broker applies its own and the default).
    A change is one transaction on the document as stored, in force here on commit and on
    the other brokers when they are told."""

    def __init__(self, documents: MetadataDocuments, node_id: int) -> None:
        super().__init__(None, {}, {}, {})
        self._documents = documents
        self.node_id = node_id
        documents.watch(DOCUMENT, self._loaded)

    def _loaded(self, doc: Any) -> None:
        doc = doc or {}
        self.broker = _strings(doc.get("brokers", {}).get(str(self.node_id)))
        self.default = _strings(doc.get("default"))
        self.groups = {str(g): _strings(c) for g, c in (doc.get("groups") or {}).items()}
        for listener in self.listeners:
            listener()

    async def seed(self, data_dir: Path) -> bool:
        """What the data directory's file holds becomes the cluster's where the cluster has
        nothing yet: its defaults and groups if the document is new, this broker's own
        configs if the cluster has none for it; True if anything was taken."""
        local = read_file(data_dir)
        if not local:
            return False
        key = str(self.node_id)

        def take(doc: Any) -> tuple[Any, bool]:
            new = {"default": {}, "brokers": {}, "groups": {}} if doc is None else json.loads(json.dumps(doc))
            if doc is None:
                new["default"] = _strings(local.get("default"))
                new["groups"] = {str(g): _strings(c) for g, c in (local.get("groups") or {}).items()}
            if local.get("broker") and key not in new.setdefault("brokers", {}):
                new["brokers"][key] = _strings(local.get("broker"))
            elif doc is not None:
                return doc, False
            return new, True

        return await self._documents.update(DOCUMENT, take)

    async def change_broker(self, per_broker: bool, change: PropsChange) -> None:
        key = str(self.node_id)

        def apply(doc: Any) -> tuple[Any, None]:
            new = dict(doc or {})
            if per_broker:
                brokers = dict(new.get("brokers") or {})
                # Kept when empty: the data directory's file is not taken again (seed).
                brokers[key] = dict(change(_strings(brokers.get(key))))
                new["brokers"] = brokers
            else:
                new["default"] = dict(change(_strings(new.get("default"))))
            return new, None

        await self._documents.update(DOCUMENT, apply)

    async def change_group(self, group: str, change: PropsChange) -> None:
        def apply(doc: Any) -> tuple[Any, None]:
            new = dict(doc or {})
            groups = dict(new.get("groups") or {})
            props = dict(change(_strings(groups.get(group))))
            if props:
                groups[group] = props
            else:
                groups.pop(group, None)
            new["groups"] = groups
            return new, None

        await self._documents.update(DOCUMENT, apply)

    async def replace_broker(self, per_broker: bool, props: Mapping[str, str]) -> None:
        await self.change_broker(per_broker, lambda current: props)

    async def replace_group(self, group: str, props: Mapping[str, str]) -> None:
        await self.change_group(group, lambda current: props)


def effective_topic_defaults(static: Mapping[str, str], dynamic: DynamicConfigs | None) -> dict[str, str]:
    """The broker-level topic defaults (by topic config name): the static ones, overridden by
    the dynamic value of each topic config's broker synonym."""
    out = dict(static)
    if dynamic is None:
        return out
    for topic_name, broker_name in TOPIC_CONFIG_SYNONYMS.items():
        value = dynamic.value(broker_name)
        if value is None:
            continue
        try:
            validate_configs({topic_name: value})
        except ConfigError as exc:
            # Checked when it was set; a value a later version refuses must not stop the broker.
            log.warning("dynamic config ignored", config=broker_name, value=value, reason=str(exc))
            continue
        out[topic_name] = value
    return out
