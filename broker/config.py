"""The broker's one configuration object.

Settings use Kafka's property names and defaults. They come, each later source overriding
the earlier, from the defaults, a Kafka-style `.properties` file, `ODRADEK_*` environment
variables (`ODRADEK_LOG_DIRS` for `log.dirs`), and command-line overrides.
"""

from __future__ import annotations

import base64
import os
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from broker.cpu_affinity import parse_cpus
from broker.security_settings import DEFAULTS as SECURITY_DEFAULTS
from broker.security_settings import SecuritySettings, is_security_setting
from storage.files import write_atomically


class ConfigError(ValueError):
    """A setting that is unknown or holds a value of the wrong kind."""


def _bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise ValueError(f"not a boolean: {text!r}")


def _cpus(text: str) -> str:
    parse_cpus(text)  # checked at load; applied by broker/__main__.py
    return text.strip()


def _migration_policy(text: str) -> str:
    policy = text.strip().lower()
    if policy not in ("disabled", "upgrade", "downgrade", "bidirectional"):
        raise ValueError(f"not a migration policy: {text!r}")
    return policy


@dataclass(frozen=True)
class Setting:
    name: str
    parse: Callable[[str], Any]
    default: Any
    doc: str
    # False for this broker's own settings, which Kafka's broker configs do not have: they
    # are set like the others but DescribeConfigs, like Kafka's, reports only Kafka's.
    kafka: bool = True


_SETTINGS = [
    Setting("node.id", int, 1, "The id of this broker in the cluster."),
    # Kafka keeps the cluster id in meta.properties, not among its configs.
    Setting("cluster.id", str, "", "Cluster id; generated and kept in the data directory when empty.", kafka=False),
    Setting("listeners", str, "PLAINTEXT://127.0.0.1:9092", "Comma-separated listener URLs to bind."),
    Setting("advertised.listeners", str, "", "Listener URLs given to clients; defaults to `listeners`."),
    Setting("log.dirs", str, "./data", "Where partition logs and coordinator state are kept."),
    Setting(
        "storage.engine",
        str,
        "file",
        "Where the log lives: `file` (the local log under `log.dirs`) or a PostgreSQL URL, "
        "`postgresql://user@host:5432/db` (storage/postgres/; the password from the URL, PGPASSWORD "
        "or `storage.engine.password.file`). The cluster id, credentials and dynamic configs stay "
        "under `log.dirs`.",
        kafka=False,
    ),
    Setting("storage.engine.password.file", str, "", "A file whose first line is the PostgreSQL password.",
            kafka=False),
    Setting(
        "cluster.enable",
        _bool,
        False,
        "Run as one broker of a cluster over the PostgreSQL `storage.engine` (docs/cluster.md): "
        "each broker its own `node.id`, partitions led by one broker each.",
        kafka=False,
    ),
    # Kafka's names and defaults; DescribeConfigs keeps reporting them from Kafka's table
    # (broker/kafka_broker_configs.py), as before they were settings here.
    Setting("broker.rack", str, "", "The rack of this broker, shown in Metadata and DescribeCluster.", kafka=False),
    Setting(
        "broker.session.timeout.ms",
        int,
        9000,
        "Cluster mode: a broker silent for this long loses its membership and its partitions.",
        kafka=False,
    ),
    Setting("broker.heartbeat.interval.ms", int, 2000, "Cluster mode: how often a broker heartbeats.", kafka=False),
    Setting(
        "storage.postgres.tail.cache.bytes",
        int,
        268435456,
        "PostgreSQL engine: the bytes of inactive segments kept in memory, newest first, over all "
        "partitions; a Fetch of older data reads it back from PostgreSQL. Segments roll at an "
        "eighth of it at most (1 MiB at least). Compacted topics stay in memory whole.",
        kafka=False,
    ),
    Setting("num.partitions", int, 1, "Partitions of an auto-created topic."),
    Setting("default.replication.factor", int, 1, "Replication factor of an auto-created topic."),
    Setting("auto.create.topics.enable", _bool, True, "Create unknown topics on Metadata or Produce."),
    Setting("delete.topic.enable", _bool, True, "Allow DeleteTopics."),
    Setting("socket.request.max.bytes", int, 104857600, "The largest request frame accepted."),
    Setting("message.max.bytes", int, 1048588, "The largest record batch a topic accepts by default."),
    Setting(
        "queued.max.requests",
        int,
        500,
        "Requests read from the network and not yet handled, over all connections; at this many "
        "every connection stops reading until one is handled.",
    ),
    Setting("max.connections", int, 2147483647, "Connections over all listeners; further ones are closed at once."),
    Setting("max.connections.per.ip", int, 2147483647, "Connections from one IP address; further ones are closed at once."),
    Setting(
        "max.connections.per.ip.overrides",
        str,
        "",
        "Per-host exceptions to max.connections.per.ip, as `host:count,host:count`.",
    ),
    Setting("connections.max.idle.ms", int, 600000, "A connection with no request for this long is closed; -1: never."),
    Setting(
        "connections.max.reauth.ms",
        int,
        0,
        "Longest SASL session before the client must re-authenticate (KIP-368); 0: no limit but the "
        "credential's own lifetime. Also `listener.name.<l>.<mechanism>.connections.max.reauth.ms`.",
    ),
    Setting("quota.window.num", int, 11, "Samples kept by each rate quota (client quotas, connection creation rate)."),
    Setting(
        "quota.window.size.seconds", int, 1, "Span of one rate quota sample, in seconds; also the longest connection throttle."
    ),
    Setting(
        "max.connection.creation.rate",
        int,
        2147483647,
        "New connections per second over all listeners (KIP-612); accepts past it are delayed. "
        "Also `listener.name.<l>.max.connection.creation.rate`.",
    ),
    # Kafka handles one request per connection at a time; this broker pipelines up to this many.
    Setting(
        "connection.max.in.flight.requests",
        int,
        500,
        "Requests of one connection handled at once; further ones wait and reading pauses.",
        kafka=False,
    ),
    Setting("max.request.partition.size.limit", int, 2000, "The most partitions a DescribeTopicPartitions answer holds."),
    Setting("max.incremental.fetch.session.cache.slots", int, 1000, "The most incremental fetch sessions kept (KIP-227)."),
    Setting("log.segment.bytes", int, 1073741824, "Default segment.bytes of topics."),
    Setting("log.roll.ms", int, 604800000, "Default segment.ms of topics."),
    Setting(
        "log.preallocate",
        _bool,
        True,
        "Default preallocate of topics: zeros kept ahead of the active segment's data (Kafka's default: false).",
    ),
    Setting("log.retention.ms", int, 604800000, "Default retention.ms of topics."),
    Setting("log.retention.bytes", int, -1, "Default retention.bytes of topics."),
    Setting("log.retention.check.interval.ms", int, 300000, "How often retention is enforced."),
    Setting("log.cleaner.backoff.ms", int, 15000, "How often the log cleaner looks for compacted partitions to clean."),
    Setting("offsets.topic.num.partitions", int, 50, "Partitions of __consumer_offsets."),
    Setting("offsets.topic.segment.bytes", int, 104857600, "segment.bytes of __consumer_offsets, set when it is created."),
    Setting("offsets.retention.minutes", int, 10080, "How long offsets of an empty group are kept."),
    Setting("offsets.retention.check.interval.ms", int, 600000, "How often expired offsets are removed."),
    Setting("offset.metadata.max.bytes", int, 4096, "The longest metadata string an offset commit may carry."),
    Setting("transaction.state.log.num.partitions", int, 50, "Partitions of __transaction_state."),
    Setting(
        "transaction.state.log.segment.bytes", int, 104857600, "segment.bytes of __transaction_state, set when it is created."
    ),
    Setting("transaction.max.timeout.ms", int, 900000, "The longest transaction timeout a producer may ask for."),
    Setting("transactional.id.expiration.ms", int, 604800000, "How long an unused transactional id is kept."),
    Setting("producer.id.expiration.ms", int, 86400000, "How long idle producer state is kept."),
    Setting(
        "transaction.two.phase.commit.enable",
        bool,
        False,
        "Allow InitProducerId's Enable2Pc (KIP-939): transactions an external coordinator commits, never timed out.",
    ),
    Setting(
        "transaction.version",
        int,
        0,
        "The transaction.version feature level finalized at startup (Kafka's kafka-storage format --feature); "
        "2 is transaction version 2, 0 leaves it unfinalized.",
    ),
    Setting(
        "transaction.abort.timed.out.transaction.cleanup.interval.ms",
        int,
        10000,
        "How often transactions past their timeout are aborted.",
    ),
    Setting(
        "transaction.remove.expired.transaction.cleanup.interval.ms",
        int,
        3600000,
        "How often expired transactional ids are removed.",
    ),
    Setting("group.initial.rebalance.delay.ms", int, 3000, "Wait for more members before the first rebalance."),
    Setting("group.min.session.timeout.ms", int, 6000, "The shortest session timeout a member may ask for."),
    Setting("group.max.session.timeout.ms", int, 1800000, "The longest session timeout a member may ask for."),
    Setting("group.max.size", int, 2147483647, "The most members a classic group may have."),
    Setting("group.consumer.session.timeout.ms", int, 45000, "The session timeout of consumer group (KIP-848) members."),
    Setting("group.consumer.heartbeat.interval.ms", int, 5000, "The heartbeat interval given to consumer group members."),
    Setting("group.consumer.max.size", int, 2147483647, "The most members a consumer group may have."),
    Setting("group.consumer.assignors", str, "uniform,range", "The server-side assignors; the first is the default."),
    Setting("group.consumer.migration.policy", _migration_policy, "bidirectional",
            "Which conversions between classic and consumer groups are allowed: disabled, upgrade, downgrade "
            "or bidirectional."),
    # Share groups (KIP-932): Kafka's ShareGroupConfig and ShareCoordinatorConfig.
    Setting("group.share.record.lock.duration.ms", int, 30000,
            "How long a share consumer holds the records it acquired before they are delivered again."),
    Setting("group.share.min.record.lock.duration.ms", int, 15000,
            "The shortest share.record.lock.duration.ms a share group may set."),
    Setting("group.share.max.record.lock.duration.ms", int, 60000,
            "The longest share.record.lock.duration.ms a share group may set."),
    Setting("group.share.delivery.count.limit", int, 5, "Deliveries of a record before it is archived."),
    Setting("group.share.partition.max.record.locks", int, 2000,
            "The most records in flight (acquired or to be redelivered) per share partition."),
    Setting("group.share.session.timeout.ms", int, 45000, "The session timeout of share group members."),
    Setting("group.share.heartbeat.interval.ms", int, 5000, "The heartbeat interval given to share group members."),
    Setting("group.share.max.size", int, 200, "The most members a share group may have."),
    Setting("share.coordinator.state.topic.num.partitions", int, 50, "Partitions of __share_group_state."),
    Setting("share.coordinator.snapshot.update.records.per.snapshot", int, 500,
            "ShareUpdate records written for a share partition before the next ShareSnapshot."),
    Setting("group.version", int, 1,
            "The group.version feature level finalized at startup; 1 serves consumer groups of the consumer "
            "protocol (KIP-848), 0 refuses ConsumerGroupHeartbeat and ConsumerGroupDescribe.",
            kafka=False),
    Setting("share.version", int, 1,
            "The share.version feature level finalized at startup; 1 serves share groups, 0 refuses them.",
            kafka=False),
    # Not Kafka settings (Kafka exposes JMX): the Prometheus endpoint of broker.metrics.
    Setting("metrics.port", int, -1, "Port of the Prometheus /metrics, /healthz and /readyz endpoint; -1 is off, 0 any free port.",
            kafka=False),
    Setting("metrics.host", str, "127.0.0.1", "Address the metrics endpoint binds.", kafka=False),
    Setting("cpu.affinity", _cpus, "", "CPUs the broker process runs on (`0`, `0,2-3`); empty: all. See "
            "broker/cpu_affinity.py.", kafka=False),
    Setting("log.format", str, "console", "Log lines as `console` (readable) or `json`.", kafka=False),
    Setting("log.level", str, "info", "The lowest level logged.", kafka=False),
]
SETTINGS: dict[str, Setting] = {s.name: s for s in _SETTINGS}
KAFKA_SETTINGS: frozenset[str] = frozenset(s.name for s in _SETTINGS if s.kafka)

ENV_PREFIX = "ODRADEK_"


@dataclass(frozen=True)
class Listener:
    name: str
    host: str
    port: int

    @classmethod
    def parse(cls, url: str) -> Listener:
        # Listener names such as SASL_PLAINTEXT are not URL schemes (no `_`): split by hand.
        name, sep, rest = url.strip().partition("://")
        try:
            parts = urlsplit(f"//{rest}")
            port = parts.port
        except ValueError:
            port = None
        if not sep or not name or port is None:
            raise ConfigError(f"listener {url!r} is not of the form NAME://host:port")
        return cls(name.upper(), parts.hostname or "0.0.0.0", port)


def read_properties(path: Path) -> dict[str, str]:
    """Reads a Java-style `.properties` file (`key=value` or `key: value`, `#`/`!` comments)."""
    values: dict[str, str] = {}
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        sep = min((i for i in (line.find("="), line.find(":")) if i >= 0), default=-1)
        if sep < 0:
            raise ConfigError(f"{path}: cannot read line {raw!r}")
        values[line[:sep].strip()] = line[sep + 1 :].strip()
    return values


def env_overrides(environ: Mapping[str, str]) -> dict[str, str]:
    found = {}
    # The security settings too (`ODRADEK_LISTENER_SECURITY_PROTOCOL_MAP`, ...), though not
    # their per-listener forms, whose listener names the variable names could not keep apart.
    for name in [*SETTINGS, *SECURITY_DEFAULTS]:
        key = ENV_PREFIX + name.upper().replace(".", "_")
        if key in environ:
            found[name] = environ[key]
    return found


class Config:
    """Typed access to every setting; unknown names are refused, not silently kept."""

    def __init__(self, overrides: Mapping[str, Any] | None = None) -> None:
        self._values: dict[str, Any] = {name: s.default for name, s in SETTINGS.items()}
        # TLS and SASL settings (broker/security_settings.py): kept as given, read per listener.
        self._security: dict[str, str] = {}
        for name, value in (overrides or {}).items():
            self.set(name, value)
        self.security = SecuritySettings(self._security)
        self.listeners = [Listener.parse(u) for u in self.get("listeners").split(",") if u.strip()]
        if not self.listeners:
            raise ConfigError("at least one listener is needed")
        advertised = self.get("advertised.listeners")
        self.advertised_listeners = (
            [Listener.parse(u) for u in advertised.split(",") if u.strip()] if advertised else self.listeners
        )
        try:
            protocols = self.security.protocol_map()
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        for listener in self.listeners:
            if listener.name not in protocols:
                raise ConfigError(f"no security protocol defined for listener {listener.name} in listener.security.protocol.map")
        self.security_protocols = {listener.name: protocols[listener.name] for listener in self.listeners}

    @classmethod
    def load(
        cls,
        properties_file: Path | None = None,
        environ: Mapping[str, str] | None = None,
        cli: Mapping[str, str] | None = None,
    ) -> Config:
        merged: dict[str, Any] = {}
        if properties_file is not None:
            merged.update(read_properties(properties_file))
        merged.update(env_overrides(os.environ if environ is None else environ))
        merged.update(cli or {})
        return cls(merged)

    def set(self, name: str, value: Any) -> None:
        setting = SETTINGS.get(name)
        if setting is None and is_security_setting(name):
            self._security[name] = str(value)
            return
        if setting is None:
            raise ConfigError(f"unknown setting {name!r}")
        if isinstance(value, str):
            try:
                value = setting.parse(value)
            except ValueError as exc:
                raise ConfigError(f"{name}: {exc}") from None
        self._values[name] = value

    def get(self, name: str) -> Any:
        return self._values[name]

    # Typed getters: a setting read with the wrong type is a programming error, caught here
    # instead of by an `int(...)` at every call site.
    def get_int(self, name: str) -> int:
        value = self._values[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{name} is not an integer setting: {value!r}")
        return value

    def get_bool(self, name: str) -> bool:
        value = self._values[name]
        if not isinstance(value, bool):
            raise ConfigError(f"{name} is not a boolean setting: {value!r}")
        return value

    def get_str(self, name: str) -> str:
        value = self._values[name]
        if not isinstance(value, str):
            raise ConfigError(f"{name} is not a string setting: {value!r}")
        return value

    def get_ms(self, name: str) -> int:
        """A duration in milliseconds; Kafka's `*.minutes` and `*.hours` settings are
        converted, so callers never multiply by hand."""
        value = self.get_int(name)
        if name.endswith(".minutes"):
            return value * 60_000
        if name.endswith(".hours"):
            return value * 3_600_000
        if name.endswith(".ms"):
            return value
        raise ConfigError(f"{name} is not a duration setting")

    def items(self) -> list[tuple[str, Any]]:
        return sorted(self._values.items())

    def is_default(self, name: str) -> bool:
        return bool(self._values[name] == SETTINGS[name].default)

    @property
    def node_id(self) -> int:
        return int(self.get("node.id"))

    @property
    def data_dir(self) -> Path:
        return Path(self.get("log.dirs").split(",")[0])

    @property
    def max_frame_bytes(self) -> int:
        return int(self.get("socket.request.max.bytes"))


def load_or_create_cluster_id(config: Config) -> str:
    """The cluster id survives restarts: it is kept beside the data it names."""
    if config.get("cluster.id"):
        return str(config.get("cluster.id"))
    path = config.data_dir / "meta.properties"
    if path.exists():
        props = read_properties(path)
        if props.get("cluster.id"):
            return props["cluster.id"]
    cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    path.parent.mkdir(parents=True, exist_ok=True)
    # Synced: after a power loss the broker must come back as the same cluster.
    write_atomically(os.fspath(path), f"version=1\ncluster.id={cluster_id}\nnode.id={config.node_id}\n".encode())
    return cluster_id
