"""Group configs (KIP-848; resource type GROUP in DescribeConfigs and
IncrementalAlterConfigs): names, types, defaults and checks of Kafka's `GroupConfig`.

The defaults and bounds are those of the broker settings that govern them in Kafka
(`GroupCoordinatorConfig`, `ShareGroupConfig`), at Kafka's defaults, since this broker has
no such settings. The classic group protocol served here reads none of them; they are
kept and reported as Kafka does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from storage.errors import ConfigError
from storage.topic_config import ConfigDef, ConfigType, Validator, at_least, one_of, parse_value


@dataclass(frozen=True, slots=True)
class GroupConfigDef:
    name: str
    type: ConfigType
    default: str
    validator: Validator | None
    # The broker setting that supplies the default, when Kafka has one ("group." + name).
    broker_synonym: str | None

    def parse(self, raw: str) -> object:
        return parse_value(ConfigDef(self.name, self.type, self.default, self.validator), raw)


def _int(name: str, default: int, minimum: int, broker: bool = True) -> GroupConfigDef:
    return GroupConfigDef(name, ConfigType.INT, str(default), at_least(minimum), "group." + name if broker else None)


GROUP_CONFIG_DEFS: dict[str, GroupConfigDef] = {
    d.name: d
    for d in (
        _int("consumer.session.timeout.ms", 45000, 1),
        _int("consumer.heartbeat.interval.ms", 5000, 1),
        _int("share.session.timeout.ms", 45000, 1),
        _int("share.heartbeat.interval.ms", 5000, 1),
        _int("share.record.lock.duration.ms", 30000, 1000),
        _int("share.delivery.count.limit", 5, 2),
        _int("share.partition.max.record.locks", 2000, 100),
        GroupConfigDef("share.auto.offset.reset", ConfigType.STRING, "latest", one_of("latest", "earliest"), None),
        GroupConfigDef("share.isolation.level", ConfigType.STRING, "read_uncommitted",
                       one_of("read_committed", "read_uncommitted"), None),
        _int("streams.session.timeout.ms", 45000, 1),
        _int("streams.heartbeat.interval.ms", 5000, 1),
        _int("streams.num.standby.replicas", 0, 0),
        _int("streams.initial.rebalance.delay.ms", 3000, 0),
    )
}

# (group config, lowest, highest, the broker settings that bound it in Kafka)
_BOUNDS = [
    ("consumer.heartbeat.interval.ms", 5000, 15000,
     "group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms"),
    ("consumer.session.timeout.ms", 45000, 60000,
     "group.consumer.min.session.timeout.ms", "group.consumer.max.session.timeout.ms"),
    ("share.heartbeat.interval.ms", 5000, 15000,
     "group.share.min.heartbeat.interval.ms", "group.share.max.heartbeat.interval.ms"),
    ("share.session.timeout.ms", 45000, 60000,
     "group.share.min.session.timeout.ms", "group.share.max.session.timeout.ms"),
    ("share.record.lock.duration.ms", 15000, 60000,
     "group.share.min.record.lock.duration.ms", "group.share.max.record.lock.duration.ms"),
    ("share.delivery.count.limit", 2, 10,
     "group.share.min.delivery.count.limit", "group.share.max.delivery.count.limit"),
    ("share.partition.max.record.locks", 100, 4000,
     "group.share.min.partition.max.record.locks", "group.share.max.partition.max.record.locks"),
    ("streams.heartbeat.interval.ms", 5000, 15000,
     "group.streams.min.heartbeat.interval.ms", "group.streams.max.heartbeat.interval.ms"),
    ("streams.session.timeout.ms", 45000, 60000,
     "group.streams.min.session.timeout.ms", "group.streams.max.session.timeout.ms"),
]
_STANDBY_MAX = 2  # group.streams.max.standby.replicas


def validate_group_configs(overrides: Mapping[str, str]) -> None:
    """Kafka's `GroupConfig.validate` over a group's resulting overrides (raises ConfigError,
    which Kafka answers with INVALID_CONFIG)."""
    for name in overrides:
        if name not in GROUP_CONFIG_DEFS:
            raise ConfigError(f"Unknown group config name: {name}")
    values = {
        name: d.parse(overrides[name]) if name in overrides else d.parse(d.default)
        for name, d in GROUP_CONFIG_DEFS.items()
    }
    for name, low, high, low_setting, high_setting in _BOUNDS:
        value = values[name]
        assert isinstance(value, int)
        if value < low:
            raise ConfigError(f"{name} must be greater than or equal to {low_setting}")
        if value > high:
            raise ConfigError(f"{name} must be less than or equal to {high_setting}")
    standby = values["streams.num.standby.replicas"]
    assert isinstance(standby, int)
    if standby > _STANDBY_MAX:
        raise ConfigError("streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas")
    for kind in ("consumer", "share", "streams"):
        session, heartbeat = values[f"{kind}.session.timeout.ms"], values[f"{kind}.heartbeat.interval.ms"]
        assert isinstance(session, int) and isinstance(heartbeat, int)
        if session <= heartbeat:
            raise ConfigError(f"{kind}.session.timeout.ms must be greater than {kind}.heartbeat.interval.ms")
