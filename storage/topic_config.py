"""Kafka's topic-level configs: names, types, defaults, validation, DescribeConfigs view.

Values travel as strings (that is how CreateTopics/AlterConfigs carry them); they are
validated and normalised on the way in, and parsed into typed values on demand.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from protocol.limits import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN

from .errors import ConfigError
from .random_source import RandomSource


class ConfigType(IntEnum):
    """DescribeConfigs v3+ config types."""

    UNKNOWN = 0
    BOOLEAN = 1
    STRING = 2
    INT = 3
    SHORT = 4
    LONG = 5
    DOUBLE = 6
    LIST = 7
    CLASS = 8
    PASSWORD = 9


class ConfigSource(IntEnum):
    """DescribeConfigs v1+ config sources, numbered as Kafka's `DescribeConfigsResponse.ConfigSource`."""

    UNKNOWN = 0
    TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5
    DYNAMIC_BROKER_LOGGER_CONFIG = 6
    CLIENT_METRICS_CONFIG = 7
    GROUP_CONFIG = 8


_JITTER_DRAWS = 1 << 31  # the values of Utils.abs(Random.nextInt())

Validator = Callable[[Any], str | None]  # returns an error message or None


# Worded as Kafka's `ConfigDef.Range`, `ValidString` and `ThrottledReplicaListValidator`.
def at_least(minimum: float) -> Validator:
    return lambda v: None if v >= minimum else f"Value must be at least {minimum}"


def between(lo: float, hi: float) -> Validator:
    def check(v: float) -> str | None:
        if v < lo:
            return f"Value must be at least {lo}"
        if v > hi:
            return f"Value must be no more than {hi}"
        return None

    return check


def one_of(*choices: str) -> Validator:
    return lambda v: None if v in choices else f"String must be one of: {', '.join(choices)}"


def subset_of(*choices: str) -> Validator:
    def check(items: list[str]) -> str | None:
        bad = [i for i in items if i not in choices]
        return f"String must be one of: {', '.join(choices)}" if bad else None

    return check


def throttled_replicas(name: str) -> Validator:
    """`*`, or a list of partitionId:brokerId (Kafka's `ThrottledReplicaListValidator`)."""

    def check(items: list[str]) -> str | None:
        if items == ["*"] or all(re.fullmatch(r"[0-9]+:[0-9]+", i) for i in items):
            return None
        return (f"{name} must be the literal '*' or a list of replicas in the following format: "
                "[partitionId]:[brokerId],[partitionId]:[brokerId],...")

    return check


@dataclass(frozen=True, slots=True)
class ConfigDef:
    name: str
    type: ConfigType
    default: str
    validator: Validator | None = None
    read_only: bool = False
    sensitive: bool = False
    doc: str = ""


def _defs(*defs: ConfigDef) -> dict[str, ConfigDef]:
    return {d.name: d for d in defs}


_T = ConfigType
# The topic configs of Kafka 4's `LogConfig` (its `configKeys()` less the internal
# `internal.segment.bytes`). Kafka 4 removed `message.format.version`,
# `message.timestamp.difference.max.ms` and `message.downconversion.enable` (KIP-724,
# KIP-937): like any unknown name they are refused with "Unknown topic config name".
CONFIG_DEFS: dict[str, ConfigDef] = _defs(
    ConfigDef("cleanup.policy", _T.LIST, "delete", subset_of("compact", "delete")),
    ConfigDef("compression.type", _T.STRING, "producer",
              one_of("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")),
    ConfigDef("compression.gzip.level", _T.INT, "-1", lambda v: None if v == -1 or 1 <= v <= 9 else "Value must be between 1 and 9 or equal to -1"),
    ConfigDef("compression.lz4.level", _T.INT, "9", between(1, 17)),
    ConfigDef("compression.zstd.level", _T.INT, "3", between(-131072, 22)),
    ConfigDef("delete.retention.ms", _T.LONG, "86400000", at_least(0)),
    ConfigDef("file.delete.delay.ms", _T.LONG, "60000", at_least(0)),
    ConfigDef("flush.messages", _T.LONG, str(INT64_MAX), at_least(1)),
    ConfigDef("flush.ms", _T.LONG, str(INT64_MAX), at_least(0)),
    ConfigDef("follower.replication.throttled.replicas", _T.LIST, "",
              throttled_replicas("follower.replication.throttled.replicas")),
    ConfigDef("leader.replication.throttled.replicas", _T.LIST, "",
              throttled_replicas("leader.replication.throttled.replicas")),
    ConfigDef("index.interval.bytes", _T.INT, "4096", at_least(0)),
    ConfigDef("local.retention.bytes", _T.LONG, "-2", at_least(-2)),
    ConfigDef("local.retention.ms", _T.LONG, "-2", at_least(-2)),
    ConfigDef("max.compaction.lag.ms", _T.LONG, str(INT64_MAX), at_least(1)),
    ConfigDef("max.message.bytes", _T.INT, "1048588", at_least(0)),
    # Kafka 4.0 lowered the default from Long.MAX_VALUE to one hour (KIP-1030).
    ConfigDef("message.timestamp.after.max.ms", _T.LONG, "3600000", at_least(0)),
    ConfigDef("message.timestamp.before.max.ms", _T.LONG, str(INT64_MAX), at_least(0)),
    ConfigDef("message.timestamp.type", _T.STRING, "CreateTime", one_of("CreateTime", "LogAppendTime")),
    ConfigDef("min.cleanable.dirty.ratio", _T.DOUBLE, "0.5", between(0, 1)),
    ConfigDef("min.compaction.lag.ms", _T.LONG, "0", at_least(0)),
    ConfigDef("min.insync.replicas", _T.INT, "1", at_least(1)),
    # Kafka's default is false; here it keeps zeros ahead of the active segment's data, so an
    # fsync round flushes data without a journal commit (storage.files.FileStore).
    ConfigDef("preallocate", _T.BOOLEAN, "true"),
    ConfigDef("remote.log.copy.disable", _T.BOOLEAN, "false"),
    ConfigDef("remote.log.delete.on.disable", _T.BOOLEAN, "false"),
    ConfigDef("remote.storage.enable", _T.BOOLEAN, "false"),
    ConfigDef("retention.bytes", _T.LONG, "-1"),
    ConfigDef("retention.ms", _T.LONG, "604800000", at_least(-1)),
    ConfigDef("segment.bytes", _T.INT, "1073741824", at_least(1024 * 1024)),
    ConfigDef("segment.index.bytes", _T.INT, "10485760", at_least(4)),
    ConfigDef("segment.jitter.ms", _T.LONG, "0", at_least(0)),
    ConfigDef("segment.ms", _T.LONG, "604800000", at_least(1)),
    ConfigDef("unclean.leader.election.enable", _T.BOOLEAN, "false"),
)

# The broker config that sets each topic config's default (Kafka's
# `ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS`, the first synonym of each).
TOPIC_CONFIG_SYNONYMS: dict[str, str] = {
    "segment.bytes": "log.segment.bytes",
    "segment.ms": "log.roll.ms",
    "segment.jitter.ms": "log.roll.jitter.ms",
    "segment.index.bytes": "log.index.size.max.bytes",
    "flush.messages": "log.flush.interval.messages",
    "flush.ms": "log.flush.interval.ms",
    "retention.bytes": "log.retention.bytes",
    "retention.ms": "log.retention.ms",
    "max.message.bytes": "message.max.bytes",
    "index.interval.bytes": "log.index.interval.bytes",
    "delete.retention.ms": "log.cleaner.delete.retention.ms",
    "min.compaction.lag.ms": "log.cleaner.min.compaction.lag.ms",
    "max.compaction.lag.ms": "log.cleaner.max.compaction.lag.ms",
    "file.delete.delay.ms": "log.segment.delete.delay.ms",
    "min.cleanable.dirty.ratio": "log.cleaner.min.cleanable.ratio",
    "cleanup.policy": "log.cleanup.policy",
    "unclean.leader.election.enable": "unclean.leader.election.enable",
    "min.insync.replicas": "min.insync.replicas",
    "compression.type": "compression.type",
    "compression.gzip.level": "compression.gzip.level",
    "compression.lz4.level": "compression.lz4.level",
    "compression.zstd.level": "compression.zstd.level",
    "preallocate": "log.preallocate",
    "message.timestamp.type": "log.message.timestamp.type",
    "message.timestamp.before.max.ms": "log.message.timestamp.before.max.ms",
    "message.timestamp.after.max.ms": "log.message.timestamp.after.max.ms",
    "local.retention.ms": "log.local.retention.ms",
    "local.retention.bytes": "log.local.retention.bytes",
}

# Internal topics hold coordinator state that must be kept per key forever.
INTERNAL_TOPIC_DEFAULTS: dict[str, str] = {"cleanup.policy": "compact", "compression.type": "producer"}


def parse_value(d: ConfigDef, raw: str) -> Any:
    """Parse a config string into its typed value (raises ConfigError)."""
    text = raw.strip()
    try:
        if d.type in (ConfigType.INT, ConfigType.LONG, ConfigType.SHORT):
            value: Any = int(text)
            lo, hi = (INT32_MIN, INT32_MAX) if d.type == ConfigType.INT else (INT64_MIN, INT64_MAX)
            if d.type == ConfigType.SHORT:
                lo, hi = -(2**15), 2**15 - 1
            if not lo <= value <= hi:
                raise ValueError("out of range")
        elif d.type == ConfigType.DOUBLE:
            value = float(text)
        elif d.type == ConfigType.BOOLEAN:
            if text.lower() not in ("true", "false"):
                raise ValueError("expected true or false")
            value = text.lower() == "true"
        elif d.type == ConfigType.LIST:
            value = [item.strip() for item in text.split(",") if item.strip()]
        else:
            value = text
    except ValueError:
        # Kafka's `ConfigDef.parseType` wording.
        wrong = ("Expected value to be either true or false" if d.type == ConfigType.BOOLEAN
                 else f"Not a number of type {d.type.name}")
        raise ConfigError(f"Invalid value {text} for configuration {d.name}: {wrong}") from None
    if d.validator is not None:
        problem = d.validator(value)
        if problem:
            raise ConfigError(f"Invalid value {text} for configuration {d.name}: {problem}")
    return value


def _normalise(d: ConfigDef, value: Any) -> str:
    if d.type == ConfigType.BOOLEAN:
        return "true" if value else "false"
    if d.type == ConfigType.LIST:
        return ",".join(value)
    if d.type in (ConfigType.INT, ConfigType.LONG, ConfigType.SHORT):
        return str(value)
    return str(value) if d.type != ConfigType.DOUBLE else repr(value)


def validate_configs(configs: Mapping[str, str | None]) -> dict[str, str | None]:
    """Validate a set of overrides; returns them normalised. None means "revert to default"."""
    out: dict[str, str | None] = {}
    for name, raw in configs.items():
        d = CONFIG_DEFS.get(name)
        if d is None:
            raise ConfigError(f"Unknown topic config name: {name}")
        if raw is None:
            out[name] = None
            continue
        if d.read_only:
            raise ConfigError(f"Config {name} is read-only")
        out[name] = _normalise(d, parse_value(d, raw))
    return out


@dataclass(frozen=True, slots=True)
class ConfigEntry:
    """One DescribeConfigs result row."""

    name: str
    value: str | None
    is_default: bool
    read_only: bool
    sensitive: bool
    source: ConfigSource
    config_type: ConfigType
    documentation: str = ""


class TopicConfig:
    """A topic's effective configuration: defaults < broker defaults < topic overrides.

    Broker defaults are keyed by topic config name; the broker resolves its static and
    dynamic settings into them (see `TOPIC_CONFIG_SYNONYMS`)."""

    __slots__ = ("_broker_defaults", "_cache", "overrides")

    def __init__(self, overrides: Mapping[str, str] | None = None,
                 broker_defaults: Mapping[str, str] | None = None) -> None:
        self.overrides: dict[str, str] = dict(overrides or {})
        self._broker_defaults: dict[str, str] = dict(broker_defaults or {})
        self._cache: dict[str, Any] = {}

    @classmethod
    def validated(cls, overrides: Mapping[str, str | None] | None,
                  broker_defaults: Mapping[str, str] | None = None) -> TopicConfig:
        clean = validate_configs(overrides or {})
        return cls({k: v for k, v in clean.items() if v is not None}, broker_defaults)

    def with_changes(self, changes: Mapping[str, str | None], *, replace: bool = False) -> TopicConfig:
        """New config with `changes` applied (None deletes an override); `replace` drops
        every existing override first, like the legacy AlterConfigs API."""
        clean = validate_configs(changes)
        merged = {} if replace else dict(self.overrides)
        for name, value in clean.items():
            if value is None:
                merged.pop(name, None)
            else:
                merged[name] = value
        return TopicConfig(merged, self._broker_defaults)

    def raw(self, name: str) -> str:
        if name in self.overrides:
            return self.overrides[name]
        if name in self._broker_defaults:
            return self._broker_defaults[name]
        return CONFIG_DEFS[name].default

    def get(self, name: str) -> Any:
        try:
            return self._cache[name]
        except KeyError:
            value = self._cache[name] = parse_value(CONFIG_DEFS[name], self.raw(name))
            return value

    # Typed accessors for what the storage engine and broker read on the hot path.
    @property
    def segment_bytes(self) -> int:
        return int(self.get("segment.bytes"))

    @property
    def segment_ms(self) -> int:
        return int(self.get("segment.ms"))

    @property
    def max_segment_ms(self) -> int:
        """The age at which a segment rolls (Kafka's LogConfig.maxSegmentMs): a compacted
        topic's segments roll by max.compaction.lag.ms too, so the cleaner may take them."""
        segment_ms = self.segment_ms
        if self.compact:
            return min(int(self.get("max.compaction.lag.ms")), segment_ms)
        return segment_ms

    def random_segment_jitter(self, random: RandomSource) -> int:
        """A new segment's roll jitter, in [0, min(segment.jitter.ms, segment.ms)) as Kafka's
        LogConfig.randomSegmentJitter draws it: from Utils.abs(nextInt()), below 2**31."""
        jitter = int(self.get("segment.jitter.ms"))
        if jitter == 0:
            return 0
        return random.randrange(_JITTER_DRAWS) % min(jitter, self.segment_ms)

    @property
    def segment_index_bytes(self) -> int:
        return int(self.get("segment.index.bytes"))

    @property
    def index_interval_bytes(self) -> int:
        return int(self.get("index.interval.bytes"))

    @property
    def retention_ms(self) -> int:
        return int(self.get("retention.ms"))

    @property
    def retention_bytes(self) -> int:
        return int(self.get("retention.bytes"))

    @property
    def max_message_bytes(self) -> int:
        return int(self.get("max.message.bytes"))

    @property
    def log_append_time(self) -> bool:
        return bool(self.get("message.timestamp.type") == "LogAppendTime")

    @property
    def cleanup_policy(self) -> frozenset[str]:
        return frozenset(self.get("cleanup.policy"))

    @property
    def compact(self) -> bool:
        return "compact" in self.cleanup_policy

    @property
    def delete(self) -> bool:
        return "delete" in self.cleanup_policy

    @property
    def compression_type(self) -> str:
        return str(self.get("compression.type"))

    @property
    def min_insync_replicas(self) -> int:
        return int(self.get("min.insync.replicas"))

    def describe(self, names: list[str] | None = None) -> list[ConfigEntry]:
        """Rows for DescribeConfigs; unknown requested names are skipped like Kafka does."""
        wanted = sorted(CONFIG_DEFS) if names is None else [n for n in names if n in CONFIG_DEFS]
        rows = []
        for name in wanted:
            d = CONFIG_DEFS[name]
            if name in self.overrides:
                source = ConfigSource.TOPIC_CONFIG
            elif name in self._broker_defaults:
                source = ConfigSource.STATIC_BROKER_CONFIG
            else:
                source = ConfigSource.DEFAULT_CONFIG
            rows.append(ConfigEntry(
                name=name,
                value=None if d.sensitive else self.raw(name),
                is_default=source == ConfigSource.DEFAULT_CONFIG,
                read_only=d.read_only,
                sensitive=d.sensitive,
                source=source,
                config_type=d.type,
                documentation=d.doc,
            ))
        return rows

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TopicConfig) and other.overrides == self.overrides

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.overrides.items())))

    def __repr__(self) -> str:
        return f"TopicConfig({self.overrides!r})"
